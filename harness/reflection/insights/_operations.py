"""A critic's answer read into operations, as ExpeL's `parse_rules` reads it."""

from __future__ import annotations

import re

from harness.records.insights import Operation

# ExpeL's pattern, kept whole because its quirks are the behaviour: an operation may start anywhere in a line
# ("- ADD 1:", "CREDIT 2:" reads as "EDIT 2:"), the number needs exactly one space before it and ": " after it,
# one "<label>: " prefix is dropped from the text (and, as `\s` matches newlines, it may reach across a line
# break), and the text runs to the end of the line.
_OPERATION = re.compile(r"((?:REMOVE|EDIT|ADD|AGREE)(?: \d+|)): (?:[a-zA-Z\s\d]+: |)(.*)")
# A rule naming an operation is taken for a formatting slip of the critic, and dropped.
_BANNED = ("ADD", "AGREE", "EDIT")


def parse_operations(text: str) -> list[Operation]:
    """The operations of a critic's answer that ExpeL keeps, in answer order.

    Kept: a non-empty rule text (stripped) that contains no banned word (case-sensitive, inside words too) and
    ends with "." (a cut-off sentence does not). An ADD loses its number.
    """
    found = []
    for head, rule in _OPERATION.findall(text):
        rule = rule.strip()
        if not rule or any(word in rule for word in _BANNED) or not rule.endswith("."):
            continue
        kind, _, number = head.partition(" ")
        found.append(Operation(kind=kind, number=None if kind == "ADD" or not number else int(number), text=rule))
    return found
