"""Entry point: `python run.py [overrides]` runs one experiment; `-m` sweeps over overrides (harness/cli)."""

from harness.cli.run_command import command

if __name__ == "__main__":
    command()
