"""A source module that raises KeyboardInterrupt as it is imported, though no one pressed Ctrl-C."""

raise KeyboardInterrupt
