"""Review of pending proposals: scripted (ids named up front) or interactive (one at a time at a terminal).

Only a reviewer's decision makes an item live memory; the interactive review shows the quote inside the
whole turn it came from, so an unrelated quote is visible as such, and asks for an explicit YES.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from pydantic import BaseModel, Field

from harness.errors import visible
from harness.gate._chain import Decision, DecisionLine
from harness.gate._errors import GateDecisionError
from harness.gate._rules import normalize_quote
from harness.gate._store import GateStore
from harness.records.gate import Proposal

MARK_OPEN: Final = "»"
MARK_CLOSE: Final = "«"
CONFIRM: Final = "YES"
PROMPT: Final = "approve, reject, skip or quit? [a/r/s/q] "
_ANSWERS: Final = {word: word[0] for word in ("approve", "reject", "skip", "quit")} | {
    letter: letter for letter in "arsq"
}


class ReviewOutcome(BaseModel):
    """What one interactive review did."""

    decided: list[DecisionLine] = Field(description="Lines appended, in order.")
    skipped: list[str] = Field(description="Ids left pending: skipped, approval not confirmed, or not reached.")


def marked_turn(proposal: Proposal) -> str:
    """`[N role] text`, with the quoted span between » and «."""
    turn = proposal.quoted_turn
    # Quote matching collapses whitespace, so find the quote's words across any whitespace of the original.
    words = normalize_quote(proposal.evidence.quote).split(" ")
    found = re.search(r"\s+".join(map(re.escape, words)), turn.text)
    text = turn.text
    if found:
        text = f"{text[: found.start()]}{MARK_OPEN}{found.group()}{MARK_CLOSE}{text[found.end() :]}"
    return f"[{turn.id} {turn.role}] {text}"


def scripted_review(
    store: GateStore,
    approve: Sequence[str],
    reject: Sequence[str],
    reviewer: str,
    note: str,
    scope: str | None = None,
) -> list[DecisionLine]:
    """Decide the named ids, approvals first; every id is checked before anything is appended."""
    approve, reject = list(dict.fromkeys(approve)), list(dict.fromkeys(reject))
    both = next((item_id for item_id in approve if item_id in reject), None)
    if both is not None:
        raise GateDecisionError(f"proposal {both} is named by both --approve and --reject; choose one.")
    pending = {proposal.id for proposal in store.pending(scope)}
    for item_id in [*approve, *reject]:
        if item_id not in pending:
            raise GateDecisionError(_not_pending(store, item_id, scope))
    return [
        *(store.decide(item_id, Decision.APPROVE, reviewer, note) for item_id in approve),
        *(store.decide(item_id, Decision.REJECT, reviewer, note) for item_id in reject),
    ]


def interactive_review(
    store: GateStore,
    reviewer: str,
    note: str,
    scope: str | None,
    ask: Callable[[str], str | None],
    say: Callable[[str], None],
) -> ReviewOutcome:
    """Walk the pending proposals; `ask` shows a prompt and returns the typed line, or None when input ends."""
    pending = store.pending(scope)
    decided: list[DecisionLine] = []
    skipped: list[str] = []
    for number, proposal in enumerate(pending, start=1):
        # Model-written text is shown, never obeyed: a control character or newline in it could hide or fake a line.
        where = f"{visible(proposal.id)} (scope {visible(proposal.scope)}, {visible(proposal.origin)})"
        say(f"\nproposal {number} of {len(pending)}: {where}")
        say(f"  lesson: {visible(proposal.lesson)}")
        say(f"  quote:  {visible(normalize_quote(proposal.evidence.quote))}")
        say(f"  turn:   {visible(marked_turn(proposal))}")
        choice = _choose(ask, say)
        if choice == "q":
            skipped += [p.id for p in pending[number - 1 :]]
            break
        if choice == "a":
            typed = ask(f"type {CONFIRM} to make this live memory: ")
            if typed != CONFIRM:
                say(f"  not approved: {CONFIRM} was not typed exactly; skipped, it stays pending.")
                skipped.append(proposal.id)
                continue
            decided.append(store.decide(proposal.id, Decision.APPROVE, reviewer, note))
            say(f"  approved (chain line {decided[-1].seq}).")
        elif choice == "r":
            decided.append(store.decide(proposal.id, Decision.REJECT, reviewer, note))
            say(f"  rejected (chain line {decided[-1].seq}).")
        else:
            skipped.append(proposal.id)
            say("  skipped; it stays pending.")
    return ReviewOutcome(decided=decided, skipped=skipped)


def _choose(ask: Callable[[str], str | None], say: Callable[[str], None]) -> str:
    """One of a, r, s, q; the end of input counts as quit."""
    while True:
        typed = ask(PROMPT)
        if typed is None:
            return "q"
        answer = typed.strip().lower()
        if answer in _ANSWERS:
            return _ANSWERS[answer]
        say("  please answer a (approve), r (reject), s (skip) or q (quit).")


def _not_pending(store: GateStore, item_id: str, scope: str | None) -> str:
    """Why `item_id` cannot be decided, as one sentence."""
    known = {proposal.id: proposal for proposal in store.proposals()}
    if item_id not in known:
        return f"no proposal with id {item_id} in {store.path}."
    if scope is not None and known[item_id].scope != scope:
        return f"proposal {item_id} is in scope {known[item_id].scope!r}, not {scope!r}."
    return f"proposal {item_id} was already decided; see reflexion-gate show {store.path}."
