"""harness/cli/run_log.py: a log line's control characters shown, a logged traceback kept as written."""

from __future__ import annotations

import logging
import sys

from harness.run.run_log import LOG_FORMAT, VisibleFormatter
from tests.harness.control_characters import HOSTILE, acting


def _record(message: str, *args: object, exc_info: bool = False) -> logging.LogRecord:
    caught = sys.exc_info() if exc_info else None
    return logging.LogRecord("harness.run", logging.INFO, __file__, 1, message, args, caught)


def test_a_message_and_its_arguments_are_one_line_with_their_control_characters_shown() -> None:
    line = VisibleFormatter(LOG_FORMAT).format(_record("run directory: %s", f"/tmp/{HOSTILE}\nfake INFO line"))
    assert line.endswith(" INFO run directory: /tmp/e␛[31mx<U+202E>y␊fake INFO line")
    assert acting(line) == [] and "\n" not in line


def test_a_traceback_of_exc_info_is_appended_as_written() -> None:
    try:
        raise ValueError("first\nsecond")
    except ValueError:
        record = _record("trial %s failed", "a\x1bb", exc_info=True)
    line = VisibleFormatter(LOG_FORMAT).format(record)
    head, traceback = line.split("\n", 1)
    assert head.endswith(" INFO trial a␛b failed")
    assert traceback.startswith("Traceback (most recent call last):")
    assert traceback.endswith("ValueError: first\nsecond")
