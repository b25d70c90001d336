"""One run: the plan, the trial loop, resuming, the run-directory lock, progress lines and the checks before work."""
