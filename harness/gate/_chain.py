"""The decision chain: one JSON line per APPROVE or REJECT, each holding the hash of the line before it.

The chain is tamper-evident, not signed: an edited, deleted, inserted or reordered line breaks it, and
decisions.head catches lines cut from the end; but anyone who can write the files can rewrite the whole
chain and the head consistently, and verification cannot tell.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Final

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.records.canonical import sha256_hex
from harness.records.gate import Proposal
from harness.gate._rules import check_candidate

GENESIS: Final = "0" * 64
"""`prev` of the first line, and the head's hash of an empty chain."""
_HEX64 = r"^[0-9a-f]{64}$"
_REORDERED = "a line was deleted, inserted or reordered"


class Decision(str, Enum):
    """What a reviewer decided about one proposal."""

    APPROVE = "APPROVE"
    REJECT = "REJECT"


class DecisionLine(BaseModel):
    """One line of decisions.jsonl."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seq: int = Field(ge=1, description="1-based position in the chain.")
    prev: str = Field(pattern=_HEX64, description="`hash` of the line before, GENESIS for the first.")
    decision: Decision = Field(description="APPROVE makes the item live memory; REJECT keeps it out for good.")
    item: Proposal = Field(description="The decided proposal in full, so the chain alone rebuilds live memory.")
    reviewer: str = Field(min_length=1, description="Who decided.")
    note: str = Field(description="The reviewer's note, possibly empty.")
    at: AwareDatetime = Field(description="When, in UTC.")
    hash: str = Field(pattern=_HEX64, description="SHA-256 of the canonical JSON of every other field.")

    @field_validator("at")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        return value.astimezone(timezone.utc)


class ChainHead(BaseModel):
    """decisions.head: the chain's length and last hash, replaced after every append."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decisions: int = Field(ge=0, description="Lines in the chain.")
    hash: str = Field(pattern=_HEX64, description="`hash` of the last line, GENESIS when empty.")


class ChainReport(BaseModel):
    """The outcome of verifying a chain; counts cover the lines before the first bad one."""

    model_config = ConfigDict(frozen=True)

    ok: bool = Field(description="Whether every line and the head check out.")
    decisions: int = Field(description="Good lines read (all of them when ok).")
    approved: int = Field(description="APPROVE lines among them.")
    rejected: int = Field(description="REJECT lines among them.")
    head: str | None = Field(description="Hash of the last good line; None for an empty chain.")
    first_bad_line: int | None = Field(description="1-based number of the first bad line, or of the first missing one.")
    reason: str | None = Field(description="Why that line is bad; None when ok.")


def new_line(
    previous: DecisionLine | None, decision: Decision, item: Proposal, reviewer: str, note: str, at: datetime
) -> DecisionLine:
    """The line that follows `previous` (None: the first line), with its hash."""
    content = {
        "seq": previous.seq + 1 if previous else 1,
        "prev": previous.hash if previous else GENESIS,
        "decision": decision.value,
        "item": item.model_dump(mode="json"),
        "reviewer": reviewer,
        "note": note,
        "at": at,
    }
    # Validated first (with a placeholder hash) so the hashed body is exactly what the line will hold.
    checked = DecisionLine.model_validate({**content, "hash": GENESIS})
    body = checked.model_dump(mode="json", exclude={"hash"})
    return checked.model_copy(update={"hash": sha256_hex(body)})


def chain_lines(data: bytes) -> list[bytes]:
    """The lines of decisions.jsonl, each with its newline; a torn last line is kept, without one."""
    *complete, tail = data.split(b"\n")
    return [line + b"\n" for line in complete] + ([tail] if tail else [])


def parse_line(raw: bytes) -> DecisionLine | None:
    """The decision line in `raw`, or None if it is not one (hash not checked)."""
    try:
        return DecisionLine.model_validate_json(raw)
    except ValidationError:
        return None


def walk_chain(data: bytes, head: bytes | None) -> tuple[ChainReport, list[DecisionLine]]:
    """Verify a chain's bytes against its head file's bytes (None: no head); also the good lines, in order."""
    good: list[DecisionLine] = []
    first_seen: dict[str, int] = {}

    def report(bad_line: int | None = None, reason: str | None = None) -> tuple[ChainReport, list[DecisionLine]]:
        approved = sum(line.decision is Decision.APPROVE for line in good)
        return (
            ChainReport(
                ok=reason is None,
                decisions=len(good),
                approved=approved,
                rejected=len(good) - approved,
                head=good[-1].hash if good else None,
                first_bad_line=bad_line,
                reason=reason,
            ),
            good,
        )

    for number, raw in enumerate(chain_lines(data), start=1):
        checked = _check_line(number, raw, good[-1] if good else None, first_seen)
        if isinstance(checked, str):
            return report(number, checked)
        good.append(checked)
        first_seen[checked.item.id] = number
    problem = _head_problem(head, good)
    return report(*problem) if problem else report()


def _check_line(
    number: int, raw: bytes, previous: DecisionLine | None, first_seen: dict[str, int]
) -> DecisionLine | str:
    """The line if it is good, else why not; checks run from the line itself outwards."""
    if not raw.endswith(b"\n"):
        return "the last line has no newline at its end (an interrupted write?)"
    try:
        body: Any = json.loads(raw)
    except ValueError:
        return "not valid JSON"
    try:
        line = DecisionLine.model_validate(body)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        return f"not a decision line ({where}: {first['msg']})"
    if sha256_hex({key: value for key, value in body.items() if key != "hash"}) != line.hash:
        return "its hash does not match its content (the line was edited)"
    if line.seq != number:
        return f"seq is {line.seq} where {number} was expected ({_REORDERED})"
    if line.prev != (previous.hash if previous else GENESIS):
        before = f"line {number - 1}'s hash" if previous else "the genesis hash"
        return f"prev does not match {before} ({_REORDERED})"
    if line.item.id in first_seen:
        return f"item {line.item.id} was already decided on line {first_seen[line.item.id]}"
    problem = approval_problem(line.item) if line.decision is Decision.APPROVE else None
    return f"approves an item {problem}" if problem else line


def approval_problem(item: Proposal) -> str | None:
    """Why `item` cannot be approved ("that fails rule 1 (...)", "whose id ..."), None if it can.

    Rule 1 again, on the item's own quoted turn: an approval cannot launder a bad quote. decide() asks before it
    appends, and verifying the chain asks of every approval.
    """
    candidate = {"lesson": item.lesson, "evidence": item.evidence.model_dump(mode="json")}
    again = check_candidate(candidate, [item.quoted_turn], item.scope, item.origin)
    if not isinstance(again, Proposal):
        return f"that fails rule 1 ({again.reason}: {again.detail})"
    if again != item:
        return "whose id or quoted turn does not match its content"
    return None


def _head_problem(head: bytes | None, good: list[DecisionLine]) -> tuple[int, str] | None:
    """The head must name exactly the chain's end, or lines cut from the end would go unnoticed."""
    count = len(good)
    if head is None:
        if not good:
            return None
        return count + 1, "decisions.head is missing, so lines removed from the end cannot be ruled out"
    try:
        recorded = ChainHead.model_validate_json(head)
    except ValidationError:
        return count + 1, "decisions.head is not a valid head record, so the chain's end cannot be checked"
    if recorded.decisions > count:
        return count + 1, (
            f"line {count + 1} is missing: decisions.head records {recorded.decisions} decisions but the chain "
            f"ends after {count} (lines were removed from the end)"
        )
    if recorded.decisions < count:
        return recorded.decisions + 1, (
            f"decisions.head records only {recorded.decisions} decisions but the chain has {count}: lines from "
            "here on were appended without updating the head (an interrupted decision, or lines added by hand)"
        )
    if recorded.hash != (good[-1].hash if good else GENESIS):
        return max(count, 1), "the chain's last hash does not match decisions.head (the end of the chain was replaced)"
    return None
