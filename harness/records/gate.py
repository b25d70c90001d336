"""The gate's records: numbered turns, the evidence an item cites, and what rule 1 makes of a candidate."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.records.canonical import sha256_hex

Role = Literal["user", "environment", "tests", "agent", "reflection"]
OUTSIDE_ROLES: Final[frozenset[Role]] = frozenset({"user", "environment", "tests"})
"""Roles whose turns can be evidence: what the world said, never what the agent said or wrote down."""

DropReason = Literal[
    "not an object",
    "no lesson text",
    "no evidence object",
    "turn is not an integer",
    "turn not found",
    "not an outside turn",
    "empty quote",
    "quote too short",
    "quote not found in that turn",
]
NOT_AN_OBJECT: Final[DropReason] = "not an object"
NO_LESSON_TEXT: Final[DropReason] = "no lesson text"
NO_EVIDENCE_OBJECT: Final[DropReason] = "no evidence object"
TURN_NOT_INTEGER: Final[DropReason] = "turn is not an integer"
TURN_NOT_FOUND: Final[DropReason] = "turn not found"
NOT_OUTSIDE_TURN: Final[DropReason] = "not an outside turn"
EMPTY_QUOTE: Final[DropReason] = "empty quote"
QUOTE_TOO_SHORT: Final[DropReason] = "quote too short"
QUOTE_NOT_FOUND: Final[DropReason] = "quote not found in that turn"
DROP_REASONS: Final[tuple[DropReason, ...]] = (
    NOT_AN_OBJECT,
    NO_LESSON_TEXT,
    NO_EVIDENCE_OBJECT,
    TURN_NOT_INTEGER,
    TURN_NOT_FOUND,
    NOT_OUTSIDE_TURN,
    EMPTY_QUOTE,
    QUOTE_TOO_SHORT,
    QUOTE_NOT_FOUND,
)

_RECORD = ConfigDict(frozen=True, extra="forbid")


class Turn(BaseModel):
    """One numbered turn of a conversation or trial, as the reflector saw it."""

    model_config = _RECORD

    id: int = Field(description="The turn's number; evidence cites it.")
    role: Role = Field(description="Who produced the turn; only OUTSIDE_ROLES count as evidence.")
    text: str = Field(description="The turn's full text.")


class Evidence(BaseModel):
    """What a memory item cites: a turn number and a quote that must occur in that turn."""

    model_config = _RECORD

    turn: int = Field(description="Id of the cited turn.")
    quote: str = Field(description="The quote exactly as the model wrote it; matching normalizes a copy.")


def proposal_id(scope: str, origin: str, lesson: str, evidence: Evidence) -> str:
    """16 hex digits of SHA-256 over the item's content, so a replayed submission gets the same id."""
    content = {"scope": scope, "origin": origin, "lesson": lesson, "evidence": evidence.model_dump(mode="json")}
    return sha256_hex(content)[:16]


class Proposal(BaseModel):
    """A memory item that passed rule 1: it waits in the pile until a reviewer decides on it."""

    model_config = _RECORD

    id: str = Field(pattern=r"^[0-9a-f]{16}$", description="proposal_id() of scope, origin, lesson and evidence.")
    lesson: str = Field(description="The lesson to remember, stripped of surrounding whitespace.")
    evidence: Evidence = Field(description="The turn and quote the lesson cites.")
    quoted_turn: Turn = Field(description="The whole cited turn, so review and the chain need nothing else.")
    scope: str = Field(description="Where the lesson applies: a task id, or 'conversation'.")
    origin: str = Field(description="Where it was proposed, e.g. 'trial 2'.")


class Dropped(BaseModel):
    """A candidate that failed rule 1, kept in dropped.jsonl with the reason."""

    model_config = _RECORD

    reason: DropReason = Field(description="Which check failed; one of DROP_REASONS.")
    detail: str = Field(description="One human sentence on what exactly failed.")
    item: Any = Field(description="The raw candidate as received (a JSON value).")
    scope: str = Field(description="Scope the candidate was submitted under.")
    origin: str = Field(description="Origin the candidate was submitted under.")


class Submission(BaseModel):
    """The outcome of one submit(): every candidate is in exactly one of the two lists, in input order."""

    model_config = _RECORD

    proposed: list[Proposal] = Field(description="Candidates that passed rule 1 (now in the pile).")
    dropped: list[Dropped] = Field(description="Candidates that failed rule 1 (now in dropped.jsonl).")
