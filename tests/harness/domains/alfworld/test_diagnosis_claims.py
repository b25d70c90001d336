"""What an ALFWorld reflection claims, read by alfworld-claims/1 on a small trial (no engine): each way of pointing at
a step, the ambiguity of a repeated action, plans that point at nothing, the cause named, and each kind of
confabulation, with the evidence pointing into the text as written."""

from __future__ import annotations

import pytest

from harness.domains.alfworld.diagnosis_baselines import first_loop_start, first_nothing_happens, last_step, signal_claims
from harness.domains.alfworld.diagnosis_claims import reflection_claims
from harness.records.diagnosis import ReflectionClaims
from harness.records.step import Step

ROOM = "You are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, a shelf 1, and a toilet 1."
STEPS = [
    Step(action="think: I need a soapbottle.", observation="OK."),
    Step(action="go to cabinet 1", observation="The cabinet 1 is closed."),
    Step(action="open cabinet 1", observation="You open the cabinet 1. The cabinet 1 is open. In it, you see a candle 1."),
    Step(action="go to shelf 1", observation="On the shelf 1, you see a soapbottle 1."),
    Step(action="go to toilet 1", observation="On the toilet 1, you see nothing."),
    Step(action="put soapbottle 1 in/on toilet 1", observation="Nothing happens."),
    Step(action="go to shelf 1", observation="On the shelf 1, you see a soapbottle 1."),
    Step(action="go to shelf 1", observation="Nothing happens."),
]


def claims(text: str) -> ReflectionClaims:
    return reflection_claims(text, STEPS, ROOM)


@pytest.mark.parametrize(
    "text, steps",
    [
        ("FAILED STEP: > put soapbottle 1 in/on toilet 1 -> Nothing happens.\nROOT CAUSE: x\nNEW PLAN: y", [6]),
        ("I opened cabinet 1 and found only a candle.", [3]),
        ("At step 5 I went to the toilet too early.", [5]),
        ("The fourth step was a waste.", [4]),
        ("After going to toilet 1, I tried to put soapbottle 1 there but nothing happened.", [6]),
        ("I should go to cabinet 2 next time, and I will take soapbottle 1 from shelf 1.", []),
        ("I went to cabinet 1 before taking anything.", [2]),
        ("The second time I went to shelf 1, I did not take the soapbottle.", [7]),
        ("At the end I went to shelf 1 again, where I already was.", [8]),
        ("The cabinet 1 was closed, so I opened it.", [3]),
    ],
)
def test_each_way_of_pointing_at_a_step(text: str, steps: list[int]) -> None:
    assert claims(text).claimed_steps == steps


def test_a_repeated_action_is_ambiguous_never_its_first_step() -> None:
    read = claims("I went to shelf 1 and saw soapbottle 1 there.")
    assert read.claimed_steps == [] and read.ambiguous
    assert [c.steps for c in read.claims if c.kind == "step"] == [[4, 7, 8]]


@pytest.mark.parametrize(
    "text, cause",
    [
        ("I was stuck in a loop going to shelf 1; nothing happened.", "loop"),
        ("Nothing happens when I put it on the toilet.", "invalid_action"),
        ("I took the candle, which was the wrong object.", "wrong_object"),
        ("I found the soapbottle but went on instead of taking it.", "ignored_seen_object"),
        ("I ran out of steps.", "search_budget"),
        ("I should have been more careful.", None),
    ],
)
def test_the_cause_named(text: str, cause: str | None) -> None:
    assert claims(text).cause == cause


@pytest.mark.parametrize(
    "text, confabulated",
    [
        ("I went to cabinet 2 and it was empty.", True),  # never went there
        ("I put soapbottle 1 in/on toilet 1.", True),  # told as done; the game answered "Nothing happens."
        ("I tried to put soapbottle 1 in/on toilet 1, but nothing happened.", False),
        ("The soapbottle was found in cabinet 1.", True),  # cabinet 1 showed a candle
        ("The soapbottle was found on shelf 1.", False),
        ("Next time I will look in cabinet 7.", True),  # no cabinet 7 in the room
        ("I noticed that the toilet 1 was empty.", False),
        ("FAILED STEP: > go to toilet 1 -> On the toilet 1, you see a soapbottle 2.", True),  # not what it answered
        ("FAILED STEP: > open drawer 1 -> You open the drawer 1.", True),  # never taken
    ],
)
def test_confabulated_claims(text: str, confabulated: bool) -> None:
    assert claims(text).confabulated is confabulated


def test_the_text_is_normalised_and_evidence_points_into_it_as_written() -> None:
    text = "I went to cabi\u200bnet 1 first."
    read = claims(text)
    assert read.claimed_steps == [2]
    step = next(c for c in read.claims if c.kind == "step")
    assert text[step.start : step.end] == step.text == "went to cabi\u200bnet 1"


def test_the_baselines_steps() -> None:
    assert (last_step(STEPS), first_nothing_happens(STEPS), first_loop_start(STEPS)) == (8, 6, 7)
    signals = signal_claims(STEPS, "exhausted", 30)
    assert (signals.claimed_steps, signals.cause) == ([6], "invalid_action")
    assert signal_claims(STEPS[:5], "max_steps", 5).cause == "search_budget"
    assert (last_step([]), first_nothing_happens(STEPS[:5]), first_loop_start(STEPS[:5])) == (None, None, None)
