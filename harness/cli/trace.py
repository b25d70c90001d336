"""`reflexion-trace RUN_DIR`: the propagation study's table, traced again from an experiment=propagation run's
propagation.json alone (harness/reflection/insights/trace.py)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from harness.errors import HarnessError, fail
from harness.reflection.insights.trace import RESULT_FILE, load_study, markdown, study_traces


class TraceInputError(HarnessError):
    """A run directory the trace cannot read."""


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="reflexion-trace", description=__doc__)
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help=f"an experiment=propagation run (its {RESULT_FILE})")
    args = parser.parse_args(argv)
    study_file = args.run_dir / RESULT_FILE
    try:
        if not study_file.is_file():
            raise TraceInputError(f"{args.run_dir} holds no {RESULT_FILE}; give an experiment=propagation run's directory.")
        try:
            study = load_study(args.run_dir)
        except (OSError, UnicodeDecodeError, ValidationError) as error:
            reason = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
            raise TraceInputError(f"{study_file} is not a propagation study this harness wrote ({reason}).") from None
    except HarnessError as error:
        fail(error)
    print(markdown(study_traces(study)))


if __name__ == "__main__":
    main()
