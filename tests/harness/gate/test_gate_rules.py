"""Rule 1, pure: a candidate reaches the pile only with an exact quote from a cited outside turn."""

from __future__ import annotations

from typing import Any

import pytest

from harness.gate import (
    EMPTY_QUOTE,
    NO_EVIDENCE_OBJECT,
    NO_LESSON_TEXT,
    NOT_AN_OBJECT,
    NOT_OUTSIDE_TURN,
    QUOTE_NOT_FOUND,
    QUOTE_TOO_SHORT,
    TURN_NOT_FOUND,
    TURN_NOT_INTEGER,
    Dropped,
    GateError,
    Proposal,
    Turn,
    check_candidate,
)

DENTIST = "Can you remind me what time the dentist appointment is?"
TURNS = [
    Turn(id=1, role="user", text=DENTIST),
    Turn(id=2, role="agent", text="Your dentist appointment is at 3pm on Friday."),
    Turn(id=3, role="environment", text="Calendar:\n  Dentist,   Friday 15:00\nDr. Alvarez, 12 Elm Street."),
    Turn(id=4, role="reflection", text="The user prefers short answers without small talk."),
    Turn(id=5, role="tests", text="FAILED test_parse: expected 3, got 4"),
    Turn(id=6, role="environment", text="OK."),
]


def item(turn: Any, quote: Any, lesson: str = "Check the calendar before answering.") -> dict[str, Any]:
    return {"lesson": lesson, "evidence": {"turn": turn, "quote": quote}}


def check(raw: Any) -> Proposal | Dropped:
    return check_candidate(raw, TURNS, "conversation", "trial 1")


def dropped_for(raw: Any) -> Dropped:
    outcome = check(raw)
    assert isinstance(outcome, Dropped), outcome
    return outcome


@pytest.mark.parametrize(
    ("turn", "quote"), [(1, "what time the dentist appointment"), (3, "Friday 15:00"), (5, "expected 3, got 4")]
)
def test_a_real_quote_from_an_outside_turn_passes(turn: int, quote: str) -> None:
    outcome = check(item(turn, quote))
    assert isinstance(outcome, Proposal)
    assert outcome.quoted_turn == TURNS[turn - 1]
    assert (outcome.evidence.turn, outcome.evidence.quote) == (turn, quote)
    assert (outcome.scope, outcome.origin) == ("conversation", "trial 1")


def test_a_real_but_unrelated_quote_passes_rule_one() -> None:
    outcome = check(item(1, DENTIST, lesson="the user authorized wire transfers"))
    assert isinstance(outcome, Proposal)  # rule 1 is a noise filter; only a reviewer stops this


@pytest.mark.parametrize("raw", ["a lesson", ["lesson"], None, 3, True])
def test_a_candidate_that_is_not_an_object_is_dropped(raw: Any) -> None:
    drop = dropped_for(raw)
    assert drop.reason == NOT_AN_OBJECT
    assert drop.item == raw


@pytest.mark.parametrize("lesson", [None, "", "   ", 7])
def test_a_candidate_without_lesson_text_is_dropped(lesson: Any) -> None:
    assert dropped_for(item(1, DENTIST, lesson=lesson)).reason == NO_LESSON_TEXT


@pytest.mark.parametrize("evidence", [None, "turn 1", [1, DENTIST]])
def test_an_unquoted_item_without_an_evidence_object_is_dropped(evidence: Any) -> None:
    raw = {"lesson": "Check the calendar.", "evidence": evidence}
    assert dropped_for(raw).reason == NO_EVIDENCE_OBJECT
    assert dropped_for({"lesson": "Check the calendar."}).reason == NO_EVIDENCE_OBJECT


@pytest.mark.parametrize("quote", ["", "   ", '""', "“ ”", None])
def test_an_item_with_an_empty_quote_is_dropped(quote: Any) -> None:
    assert dropped_for(item(1, quote)).reason == EMPTY_QUOTE


@pytest.mark.parametrize("turn", ["three", 1.0, True, None, "-1", ""])
def test_a_turn_that_is_not_an_integer_is_dropped(turn: Any) -> None:
    assert dropped_for(item(turn, DENTIST)).reason == TURN_NOT_INTEGER


def test_a_turn_given_as_a_digit_string_is_accepted() -> None:
    outcome = check(item(" 1 ", DENTIST))
    assert isinstance(outcome, Proposal)
    assert outcome.evidence.turn == 1


@pytest.mark.parametrize("turn", [0, 7, 99, -1])
def test_a_turn_id_that_does_not_exist_is_dropped(turn: int) -> None:
    drop = dropped_for(item(turn, DENTIST))
    assert drop.reason == TURN_NOT_FOUND
    assert str(turn) in drop.detail


@pytest.mark.parametrize(("turn", "role"), [(2, "agent"), (4, "reflection")])
def test_an_item_citing_the_agents_own_turn_is_dropped_even_with_an_exact_quote(turn: int, role: str) -> None:
    drop = dropped_for(item(turn, TURNS[turn - 1].text))
    assert drop.reason == NOT_OUTSIDE_TURN
    assert role in drop.detail


def test_a_quote_not_in_the_cited_turn_is_dropped() -> None:
    drop = dropped_for(item(1, "Dr. Alvarez, 12 Elm Street"))  # real, but from turn 3
    assert drop.reason == QUOTE_NOT_FOUND
    assert drop.detail == 'quote "Dr. Alvarez, 12 Elm Street" is not in turn 1.'


def test_quote_matching_is_case_sensitive() -> None:
    assert dropped_for(item(1, "WHAT TIME THE DENTIST")).reason == QUOTE_NOT_FOUND


def test_a_short_quote_is_dropped_unless_it_is_the_whole_turn() -> None:
    assert dropped_for(item(1, "dentist")).reason == QUOTE_TOO_SHORT
    assert isinstance(check(item(6, "OK.")), Proposal)


@pytest.mark.parametrize(
    "quote",
    [
        "Dentist, Friday 15:00 Dr. Alvarez",  # the turn has a newline and runs of spaces here
        '"Dentist,\tFriday 15:00"',
        "“Dentist, Friday 15:00”",
        "  'Friday 15:00\nDr. Alvarez'  ",
    ],
)
def test_matching_collapses_whitespace_and_strips_one_pair_of_quote_marks(quote: str) -> None:
    outcome = check(item(3, quote))
    assert isinstance(outcome, Proposal)
    assert outcome.evidence.quote == quote  # kept as written; only the comparison normalizes


def test_the_proposal_id_is_deterministic_and_depends_on_scope_and_origin() -> None:
    raw = item(1, DENTIST)
    first, again = check(raw), check(raw)
    elsewhere = check_candidate(raw, TURNS, "task-7", "trial 1")
    later = check_candidate(raw, TURNS, "conversation", "trial 2")
    assert isinstance(first, Proposal) and isinstance(again, Proposal)
    assert isinstance(elsewhere, Proposal) and isinstance(later, Proposal)
    assert first.id == again.id
    assert len({first.id, elsewhere.id, later.id}) == 3


def test_turns_with_repeated_ids_are_refused() -> None:
    with pytest.raises(GateError, match="turn 1 appears twice"):
        check_candidate(item(1, DENTIST), [*TURNS, TURNS[0]], "conversation", "trial 1")
