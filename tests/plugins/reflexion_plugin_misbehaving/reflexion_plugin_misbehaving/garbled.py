"""A source module whose import fails with a message holding terminal escape sequences (clear the screen, red)."""

raise ImportError("needs \x1b[2J\x1b[31mfancy_dependency\x1b[0m")
