"""HotpotQA: Reflexion's chain-of-thought agent with the supporting paragraphs as context, judged by exact match.

questions (the 100 shipped questions, their context, the selection), judge (Reflexion's EM), agent (the CoT
agent: prompts, format_step, parse_action, the scratchpad), models (what a trial leaves in its record), signals
(failure signals a parser finds without the answer key), reflection (the hooks the reflection sources call),
mention (object mention: a supporting article's title), published (the published CoT logs as records of this
domain), domain (the Domain), config (the env config).
"""
