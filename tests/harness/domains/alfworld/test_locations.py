"""Location claims read from a text, and checked against where a play first saw each object: the cases where the
rule must say yes and where it must say no, hidden spellings included (issue 47 item 4: one normaliser)."""

from __future__ import annotations

import pytest

from harness.domains.alfworld.locations import checked_claims, location_claims
from harness.reflection.insights.rule_gate import entity_words, unquoted

PLAY = """You are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, a countertop 1, and a toilet 1.
> go to toilet 1
You arrive at loc 18. On the toilet 1, you see a candle 1, and a soapbar 2.
> take soapbar 2 from toilet 1
You pick up the soapbar 2 from the toilet 1.
> go to cabinet 1
You arrive at loc 8. The cabinet 1 is closed.
> open cabinet 1
You open the cabinet 1. The cabinet 1 is open. In it, you see a cloth 1.
> put soapbar 2 in/on cabinet 1
You put the soapbar 2 in/on the cabinet 1.
> go to countertop 1
You arrive at loc 12. On the countertop 1, you see a soapbar 1, and a soapbottle 1."""


@pytest.mark.parametrize(("text", "claims"), [
    ("I should have taken soapbar 1 from cabinet 1.", [("soapbar 1", "cabinet 1")]),
    ("The mug 1 was on the countertop 2, not where I looked.", [("mug 1", "countertop 2")]),
    ("I noticed that the desklamp was found on shelf 3.", [("desklamp", "shelf 3")]),
    ("I found the apple 1 on the countertop 2 and put it in fridge 1.", [("apple 1", "countertop 2")]),
    ("I should put soapbar 1 in/on cabinet 1.", []),  # where it goes, not where it is
    ("put the soapbar 1 and the soapbar 2 in cabinet 1", []),
    ("heat the egg 1 in microwave 1", []),  # a tool, not a place
    ("the mug 1 was not in cabinet 1", []),  # negated
    ("go to countertop 1 then take it", []),
    ("ｓｏａｐｂａｒ 1 is in cabinet 2", [("soapbar 1", "cabinet 2")]),  # fullwidth
    ("soap\u200bbar 1 is on countertop 1", [("soapbar 1", "countertop 1")]),  # a zero-width space
])
def test_a_location_claim_is_read_where_a_text_states_one(text: str, claims: list[tuple[str, str]]) -> None:
    assert [(c.object, c.receptacle) for c in location_claims(text)] == claims


@pytest.mark.parametrize(("text", "verdict"), [
    ("take soapbar 1 from countertop 1", "confirmed"),
    ("take soapbar 1 from cabinet 1", "contradicted"),  # first seen on countertop 1
    ("the cloth 1 was in cabinet 1", "confirmed"),
    ("the candle 1 was in cabinet 1", "contradicted"),  # cabinet 1's first look held cloth 1 only
    ("the soapbar 2 was in cabinet 1", "contradicted"),  # put there by the agent: not where it was
    ("a soapbar from the toilet 1", "confirmed"),
    ("a spraybottle in cabinet 1", "contradicted"),
    ("the cloth 2 was in cabinet 2", "unverifiable"),  # neither seen
])
def test_a_claim_is_checked_against_the_play_s_first_sightings(text: str, verdict: str) -> None:
    (checked,) = checked_claims(text, [PLAY])
    assert checked.verdict == verdict
    assert (checked.evidence is None) == (verdict == "unverifiable")


@pytest.mark.parametrize("hidden", ["ｅｇｇ", "e\u200bgg", "egg\u0301", "E\u00adGG"])
def test_the_gate_reads_an_entity_however_it_is_written(hidden: str) -> None:
    # Issue 47 item 4: the whitespace-only normaliser let these through as no entity at all.
    assert entity_words(f"Always check the {hidden} first.") == ["egg"]
    assert unquoted(f"Look for the {hidden}.", PLAY) == ["egg"]
