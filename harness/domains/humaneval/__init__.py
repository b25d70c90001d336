"""HumanEval: Reflexion's programming loop, every execution in the sandbox.

actor (prompts, internal tests, implementations), extraction (code out of an answer), feedback (running the internal
tests, Reflexion's feedback text), signals (failure signals of a run), mention (object mention on code), attempt
(what a trial leaves in its record), domain (the Domain and its reflection hooks), config (the env config).
"""
