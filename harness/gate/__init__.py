"""The memory gate: what a reflection may write into an agent's memory, and who lets it in.

Three rules. (1) Every proposed item cites evidence, a numbered turn and an exact quote from it, and the
quote must occur in that turn; only outside turns count (user, environment, tests), never the agent's own
(agent, reflection). This is a noise filter, not a truth check: a real but unrelated quote still passes.
(2) An item that passes goes to a proposed pile, not into live memory. (3) It becomes live only through an
APPROVE decision appended to a hash chain; rejections are chained too, and drops are logged with a reason.

The chain is tamper-evident, not signed: each line holds the hash of the one before and decisions.head
holds the last, so an edited, deleted, inserted or reordered line, or lines cut from the end, are found by
verify(); but anyone who can write the store's files can rewrite the whole chain consistently, and nothing
here can tell. Keep the store where only its owner can write if that matters.

The owner's command line: `python -m harness.gate {review,verify,show} STORE`.
"""

from harness.gate._chain import GENESIS, ChainReport, Decision, DecisionLine
from harness.gate._errors import GateChainError, GateDecisionError, GateError, InvalidGateStoreError
from harness.gate._evidence import (
    DROP_REASONS,
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
    Role,
    Submission,
    Turn,
)
from harness.gate._rules import MIN_QUOTE_CHARS, check_candidate, normalize_quote, normalize_text
from harness.gate._store import GateStore

__all__ = [
    "DROP_REASONS",
    "EMPTY_QUOTE",
    "GENESIS",
    "MIN_QUOTE_CHARS",
    "NOT_AN_OBJECT",
    "NOT_OUTSIDE_TURN",
    "NO_EVIDENCE_OBJECT",
    "NO_LESSON_TEXT",
    "OUTSIDE_ROLES",
    "QUOTE_NOT_FOUND",
    "QUOTE_TOO_SHORT",
    "TURN_NOT_FOUND",
    "TURN_NOT_INTEGER",
    "ChainReport",
    "Decision",
    "DecisionLine",
    "DropReason",
    "Dropped",
    "Evidence",
    "GateChainError",
    "GateDecisionError",
    "GateError",
    "GateStore",
    "InvalidGateStoreError",
    "Proposal",
    "Role",
    "Submission",
    "Turn",
    "check_candidate",
    "normalize_quote",
    "normalize_text",
]
