"""ALFWorld: real text games through the engine in envs/alfworld.py, played by Reflexion's actor.

actor (prompt and episode), domain (the Domain and its reflection hooks), signals (the trajectory parser's failure
steps), target (the object each game is about), selection (which games a run plays), config (the env config).
"""
