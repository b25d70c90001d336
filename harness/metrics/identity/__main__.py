"""`python -m harness.metrics.identity FILE.jsonl`: label reflections from any harness's logs.

Reads JSON lines `{"domain": "alfworld", "task": "<task folder>", "text": "<reflection>"}` (HumanEval: `task` a problem
id and `failed_test` the failed assert, with Reflexion's `# output: <value>` if known, or the error line; HotpotQA:
`task` a shipped question id) and prints each line back, in the same order, with `label` (on_task, off_task, vacuous)
and `evidence` (the words that decided it) added, one JSON line each. `-` reads standard input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.domains.registry import line_identity
from harness.errors import HarnessError, fail


class IdentityInputError(HarnessError):
    """A line of the command's input that cannot be labelled."""


def label_line(line: str, number: int, source: str) -> dict[str, object]:
    """One input line with `label` and `evidence` added; IdentityInputError naming the line when it cannot be."""
    try:
        item = json.loads(line)
    except ValueError as error:
        raise IdentityInputError(f"{source} line {number} is not JSON ({error.msg}).") from None
    if not isinstance(item, dict):
        raise IdentityInputError(f"{source} line {number} is not a JSON object; accepted: {{'domain', 'task', 'text'}}.")
    try:
        identity = line_identity(item)
    except ValueError as error:
        raise IdentityInputError(f"{source} line {number}: {error}") from None
    return {**item, "label": identity.label, "evidence": [e.model_dump() for e in identity.evidence]}


def label_lines(lines: Iterable[str], source: str) -> list[dict[str, object]]:
    """Every non-blank line labelled, in order; the first bad line stops it before anything is printed."""
    return [label_line(line, number, source) for number, line in enumerate(lines, start=1) if line.strip()]


def main(argv: Sequence[str] | None = None) -> None:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments in (["-h"], ["--help"]):
        print(__doc__)
        return
    if len(arguments) != 1:
        fail(f"give one JSON-lines file (or -), got {len(arguments)} arguments.\n\n{__doc__}")
    name = arguments[0]
    try:
        if name == "-":
            labelled = label_lines(sys.stdin, "standard input")
        else:
            path = Path(name)
            if not path.is_file():
                raise IdentityInputError(f"{name} is not a file; give a JSON-lines file of reflections, or - for stdin.")
            with path.open(encoding="utf-8") as handle:
                labelled = label_lines(handle, name)
    except UnicodeDecodeError as error:
        fail(f"{name} is not UTF-8 text (byte {error.start}); give a JSON-lines file.")
    except IdentityInputError as error:
        fail(error)
    for item in labelled:
        print(json.dumps(item))  # ASCII: no model text reaches a terminal as a control sequence


if __name__ == "__main__":
    main()
