"""`reflexion-identity FILE.jsonl`: label reflections from any harness's logs.

Reads JSON lines, one reflection each, and prints each line back, in the same order, with `label` (on_task,
off_task, vacuous) and `evidence` (the words that decided it) added, one JSON line each. `-` reads standard input.

  {"domain": "alfworld", "task": "<ALFWorld task folder>", "text": "<reflection>"}
  {"domain": "hotpotqa", "task": "<shipped question id>", "text": "...", "attempt_answer": "<optional>"}
  {"domain": "humaneval", "task": "HumanEval/<n>", "text": "...", "failed_test": "<optional>"}

`attempt_answer` (the answer of the attempt the reflection is about) and `failed_test` (the run's feedback:
Reflexion's `assert ... # output: ...` or the harness's rendering of its signals) are used where given; a line
without them is labelled from the task alone.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import TextIO

from harness.domains.registry import line_identity
from harness.cli.json_lines import LineInputError, parsed_object, print_json_lines, read_lines, require_stdout
from harness.errors import fail


class IdentityInputError(LineInputError):
    """A line of the command's input that cannot be labelled."""


def label_line(line: str, number: int, source: str) -> dict[str, object]:
    """One input line with `label` and `evidence` added; IdentityInputError naming the line when it cannot be."""
    item = parsed_object(line, f"{source} line {number}", "a reflection's line", "{'domain', 'task', 'text'}")
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
        _print_usage(sys.stdout)
        return
    if len(arguments) != 1:
        _print_usage(sys.stderr)
        fail(f"give one JSON-lines file (or -), got {len(arguments)} arguments.")
    name = arguments[0]
    require_stdout("the labelled lines")
    try:
        labelled = read_lines(name, label_lines)
        if labelled is None:
            raise IdentityInputError(f"{name} is not a file; give a JSON-lines file of reflections, or - for stdin.")
    except UnicodeDecodeError as error:
        fail(f"{name} is not UTF-8 text (byte {error.start}); give a JSON-lines file.")
    except LineInputError as error:
        fail(error)
    print_json_lines(labelled)


def _print_usage(stream: TextIO) -> None:
    """The usage as its lines (fail() would show its newlines as symbols: it keeps an error to one line)."""
    print(__doc__.strip(), file=stream)


if __name__ == "__main__":
    main()
