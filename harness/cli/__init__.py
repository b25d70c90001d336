"""The command line: the one composition root over every package (the Hydra task and its callback, the overrides'
typo checks, run.log, the console scripts)."""
