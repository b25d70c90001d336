"""What a test looks for in a command's output: a byte that would act on a terminal instead of showing."""

from __future__ import annotations

import re

HOSTILE = "e\x1b[31mx\u202ey"
"""A folder name with a terminal colour sequence and a right-to-left override."""
ACTING = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""C0 controls but the newline, DEL and C1, the bidirectional overrides and isolates."""


def acting(text: str) -> list[str]:
    """Every character of `text` that would act on a terminal, newlines aside (the caller counts lines)."""
    return ACTING.findall(text)
