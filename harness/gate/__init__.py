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

The owner's command line: `reflexion-gate {review,verify,show} STORE` (harness/cli/gate.py). The record models (turns, proposals,
drops) are in `evidence`, which loads nothing else; the rest is imported on first use, so a record can be read
without loading the store.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "GENESIS": "harness.gate._chain",
    "ChainReport": "harness.gate._chain",
    "Decision": "harness.gate._chain",
    "DecisionLine": "harness.gate._chain",
    "GateChainError": "harness.gate._errors",
    "GateDecisionError": "harness.gate._errors",
    "GateError": "harness.gate._errors",
    "InvalidGateStoreError": "harness.gate._errors",
    "DROP_REASONS": "harness.records.gate",
    "EMPTY_QUOTE": "harness.records.gate",
    "NO_EVIDENCE_OBJECT": "harness.records.gate",
    "NO_LESSON_TEXT": "harness.records.gate",
    "NOT_AN_OBJECT": "harness.records.gate",
    "NOT_OUTSIDE_TURN": "harness.records.gate",
    "OUTSIDE_ROLES": "harness.records.gate",
    "QUOTE_NOT_FOUND": "harness.records.gate",
    "QUOTE_TOO_SHORT": "harness.records.gate",
    "TURN_NOT_FOUND": "harness.records.gate",
    "TURN_NOT_INTEGER": "harness.records.gate",
    "Dropped": "harness.records.gate",
    "DropReason": "harness.records.gate",
    "Evidence": "harness.records.gate",
    "Proposal": "harness.records.gate",
    "Role": "harness.records.gate",
    "Submission": "harness.records.gate",
    "Turn": "harness.records.gate",
    "MIN_QUOTE_CHARS": "harness.gate._rules",
    "check_candidate": "harness.gate._rules",
    "normalize_quote": "harness.gate._rules",
    "normalize_text": "harness.gate._rules",
    "GateStore": "harness.gate._store",
    "CONFIRM": "harness.gate._review",
    "interactive_review": "harness.gate._review",
    "scripted_review": "harness.gate._review",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'harness.gate' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
