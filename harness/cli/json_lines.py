"""What the line-labelling commands (`reflexion-identity`, `reflexion-diagnosis`) share: their input, a JSON-lines
file or standard input, read whole before anything is printed, and their output, one JSON line per input line."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from harness.errors import EXIT_PIPE_CLOSED, HarnessError, fail
from harness.records.strict_json import strict_json_problem

Labelled = list[dict[str, Any]]


class LineInputError(HarnessError):
    """A line of a labelling command's input that cannot be read or labelled."""


def parsed_object(line: str, where: str, what: str, accepted: str) -> dict[str, Any]:
    """The line's JSON object, held to what every log of the harness keeps: each key once, no NaN or Infinity.
    `where` names the line, `what` one line's content, `accepted` its keys (in the refusal's sentence)."""
    try:
        item = json.loads(line)
        problem = strict_json_problem(line.encode("utf-8"))
    except ValueError as error:
        raise LineInputError(f"{where} is not JSON ({getattr(error, 'msg', error)}).") from None
    except RecursionError:
        raise LineInputError(f"{where} is nested too deeply to be {what}.") from None
    if problem is not None:
        raise LineInputError(f"{where}: {problem}.")
    if not isinstance(item, dict):
        raise LineInputError(f"{where} is not a JSON object; accepted: {accepted}.")
    return item


def read_lines(name: str, label: Callable[[Iterable[str], str], Labelled]) -> Labelled | None:
    """`label(lines, source)` over standard input (`-`) or the named file; None when `name` is no file."""
    if name == "-":
        return label(sys.stdin, "standard input")
    path = Path(name)
    if not path.is_file():
        return None
    with path.open(encoding="utf-8") as handle:
        return label(handle, name)


def require_stdout(what: str) -> None:
    """Fail in one sentence when the command started with its standard output closed (`>&-`)."""
    if sys.stdout is None:  # the interpreter sets it so
        fail(f"standard output is closed, and {what} are written there; send it to a file or a pipe.")


def print_json_lines(items: Iterable[dict[str, Any]]) -> None:
    """One JSON line each, ASCII (no model text reaches a terminal as a control sequence); a reader that stopped
    reading (`| head -1`) ends the command quietly, as the gate's does."""
    try:
        for item in items:
            print(json.dumps(item, allow_nan=False))
        sys.stdout.flush()
    except BrokenPipeError:
        # Point stdout at nothing so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_PIPE_CLOSED)
