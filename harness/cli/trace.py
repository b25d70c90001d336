"""`reflexion-trace RUN_DIR`: a propagation study's tables traced again from its run's record alone: propagation.json
(experiment=propagation), entry.json (propagation_entry) or reach.json (propagation_reach)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from harness.errors import HarnessError, fail
from harness.records.propagation import ENTRY_FILE, REACH_FILE, RESULT_FILE, EntryStudy, PropagationStudy, ReachStudy
from harness.reflection.insights.entry_trace import entry_markdown
from harness.reflection.insights.reach_trace import reach_markdown
from harness.reflection.insights.trace import markdown


class TraceInputError(HarnessError):
    """A run directory the trace cannot read."""


def _tables(path: Path) -> str:
    """The tables of one study record, or TraceInputError naming it when it is not one this harness wrote."""
    try:
        data = path.read_bytes()
        if path.name == ENTRY_FILE:
            return entry_markdown(EntryStudy.model_validate_json(data))
        if path.name == REACH_FILE:
            return reach_markdown(ReachStudy.model_validate_json(data))
        return markdown(PropagationStudy.model_validate_json(data))
    except (OSError, ValueError) as error:  # a ValidationError is a ValueError
        problem = f"{error.error_count()} errors" if isinstance(error, ValidationError) else type(error).__name__
        raise TraceInputError(
            f"{path} is not a propagation record of this harness ({problem}); run the study again to rewrite it."
        ) from None


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="reflexion-trace", description=__doc__)
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a propagation study's run directory")
    args = parser.parse_args(argv)
    found = [args.run_dir / name for name in (RESULT_FILE, ENTRY_FILE, REACH_FILE) if (args.run_dir / name).is_file()]
    try:
        if not found:
            raise TraceInputError(
                f"{args.run_dir} holds no {RESULT_FILE}, {ENTRY_FILE} or {REACH_FILE}; give the directory of an "
                "experiment=propagation, propagation_entry or propagation_reach run."
            )
        text = _tables(found[0])
    except HarnessError as error:
        fail(error)
    print(text)


if __name__ == "__main__":
    main()
