"""Rule 1, pure: a candidate memory item must quote an outside turn exactly, or it is dropped with a reason.

The quote check is a noise filter, not a truth check: a real quote that has nothing to do with the lesson
still passes, which is why a passing item only reaches the pile and needs a reviewer's approval.
Matching is deliberately plain: whitespace runs collapse to one space, the ends are stripped, one pair of
surrounding quote characters is removed from the quote, then a case-sensitive substring test against the
normalized turn text. Nothing fuzzier: no case folding, no punctuation or Unicode normalization.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

from harness.gate._errors import GateError
from harness.records.gate import (
    EMPTY_QUOTE,
    NO_EVIDENCE_OBJECT,
    NO_LESSON_TEXT,
    NOT_AN_OBJECT,
    NOT_OUTSIDE_TURN,
    OUTSIDE_ROLES,
    QUOTE_NOT_FOUND,
    QUOTE_TOO_SHORT,
    TURN_NOT_FOUND,
    TURN_NOT_INTEGER,
    Dropped,
    DropReason,
    Evidence,
    Proposal,
    Turn,
    proposal_id,
)

MIN_QUOTE_CHARS: Final = 12
"""Shorter quotes ("the", "Nothing") occur almost anywhere, so they prove nothing; unless they are the whole turn."""
QUOTE_CHARS: Final = frozenset("\"'“”‘’")
_DIGITS = re.compile(r"[0-9]+")
_SHOWN_CHARS = 120  # a detail is one readable sentence, not a copy of a long quote


def normalize_text(text: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped."""
    return " ".join(text.split())


def normalize_quote(quote: str) -> str:
    """normalize_text, then one pair of surrounding quote characters removed (and the ends stripped again)."""
    text = normalize_text(quote)
    if len(text) >= 2 and text[0] in QUOTE_CHARS and text[-1] in QUOTE_CHARS:
        text = text[1:-1].strip()
    return text


def check_candidate(raw: Any, turns: Sequence[Turn], scope: str, origin: str) -> Proposal | Dropped:
    """Rule 1 on one raw candidate (a parsed JSON value): a Proposal if its quote is in the cited outside turn.

    Expected shape: {"lesson": str, "evidence": {"turn": int or digit string, "quote": str}}; other keys are
    ignored. Checks run in the order of DROP_REASONS and the first failure is the reason.
    """

    def drop(reason: DropReason, detail: str) -> Dropped:
        return Dropped(reason=reason, detail=detail, item=raw, scope=scope, origin=origin)

    if not isinstance(raw, dict):
        return drop(NOT_AN_OBJECT, f"expected a JSON object with a lesson and evidence, got {_json_kind(raw)}.")
    lesson = raw.get("lesson")
    if not isinstance(lesson, str) or not lesson.strip():
        return drop(NO_LESSON_TEXT, "the item has no non-empty 'lesson' string.")
    evidence = raw.get("evidence")
    if not isinstance(evidence, dict):
        return drop(NO_EVIDENCE_OBJECT, "the item has no 'evidence' object citing a turn and a quote.")
    number = _turn_number(evidence.get("turn"))
    if number is None:
        return drop(TURN_NOT_INTEGER, f"evidence turn {_shown(evidence.get('turn'))} is not an integer.")
    turn = _turns_by_id(turns).get(number)
    if turn is None:
        return drop(TURN_NOT_FOUND, f"there is no turn {number} among the {len(turns)} turns given.")
    if turn.role not in OUTSIDE_ROLES:
        return drop(
            NOT_OUTSIDE_TURN,
            f"turn {number} has role {turn.role}; only {', '.join(sorted(OUTSIDE_ROLES))} turns are evidence.",
        )
    quote = evidence.get("quote")
    if not isinstance(quote, str):
        return drop(EMPTY_QUOTE, "the evidence has no 'quote' string.")
    problem = quote_problem(quote, turn)
    if problem is not None:
        return drop(*problem)
    lesson = lesson.strip()
    cited = Evidence(turn=number, quote=quote)
    return Proposal(
        id=proposal_id(scope, origin, lesson, cited),
        lesson=lesson,
        evidence=cited,
        quoted_turn=turn,
        scope=scope,
        origin=origin,
    )


def quote_problem(quote: str, turn: Turn) -> tuple[DropReason, str] | None:
    """Why `quote` does not count as a quote of `turn` (reason, detail), or None when it does."""
    wanted = normalize_quote(quote)
    text = normalize_text(turn.text)
    if not wanted:
        return EMPTY_QUOTE, "the evidence quote is empty."
    if len(wanted) < MIN_QUOTE_CHARS and wanted != text:
        return (
            QUOTE_TOO_SHORT,
            (
                f"quote {_shown(wanted)} has {len(wanted)} characters; at least {MIN_QUOTE_CHARS} are needed "
                "unless it is the whole turn."
            ),
        )
    if wanted not in text:
        return QUOTE_NOT_FOUND, f"quote {_shown(wanted)} is not in turn {turn.id}."
    return None


def _turn_number(value: Any) -> int | None:
    # bool is an int subclass, but JSON true is not a turn number.
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        return int(value.strip())
    return None


def _turns_by_id(turns: Sequence[Turn]) -> dict[int, Turn]:
    by_id: dict[int, Turn] = {}
    for turn in turns:
        if turn.id in by_id:
            raise GateError(f"turn ids must be unique, but turn {turn.id} appears twice.")
        by_id[turn.id] = turn
    return by_id


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"
