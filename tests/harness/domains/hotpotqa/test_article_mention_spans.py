"""Where a reflection names a supporting article: the spans agree with the rule that counts the mention."""

from __future__ import annotations

import pytest

from harness.domains.hotpotqa.judge import normalize_answer, normalize_with_origins
from harness.domains.hotpotqa.mention import article_spans, names_article, reflection_spans
from harness.domains.registry import mention_spans
from tests.harness.factories import make_record

TRICKY = [
    "The  Beatles!",
    "A man, a plan, a canal: Panama.",
    "İstanbul was İzmir's rival",
    "ΟΔΟΣ and the ΣΟΦΟΣ",
    "an  the a",
    "",
    "  \t\n ",
    "Jean-Luc Picard's (film) - the end",
    "x-the-y and then-a-thing",
    "William King (governor) of Maine",
]
KING, ELECTION = "William King (governor)", "Maine gubernatorial election, 1820"


@pytest.mark.parametrize("text", TRICKY)
def test_the_normalized_text_is_normalize_answers_and_each_character_knows_its_source(text: str) -> None:
    said, origins = normalize_with_origins(text)
    assert said == normalize_answer(text)
    assert len(origins) == len(said) and origins == sorted(origins)
    for ch, origin in zip(said, origins):
        assert ch == " " or ch.casefold() in text[origin].casefold()  # casefold: a final sigma is a sigma


@pytest.mark.parametrize(
    ("reflection", "title", "strict", "normalized"),
    [
        ("I searched William King but not the election.", KING, ["William King"], ["William King"]),
        ("I looked up william king, the governor.", KING, [], ["william king"]),
        ("Not william king's term: a whole word only.", KING, [], []),
        ("Pete Doherty, then PETE DOHERTY again.", "Pete Doherty", ["Pete Doherty"], ["Pete Doherty", "PETE DOHERTY"]),
        ("The Maine gubernatorial election 1820 matters.", ELECTION, [], ["Maine gubernatorial election 1820"]),
        ("Jonny Craigslist is not him.", "Jonny Craig", ["Jonny Craig"], []),
        ("VIVA  Media: its founding year.", "VIVA Media", [], ["VIVA  Media"]),
        ("Nothing about it.", "VIVA Media", [], []),
    ],
)
def test_spans_follow_the_rule(reflection: str, title: str, strict: list[str], normalized: list[str]) -> None:
    spans = article_spans(reflection, [title])
    assert [reflection[s.start : s.end] for s in spans if s.variant == "strict"] == strict
    assert [reflection[s.start : s.end] for s in spans if s.variant == "normalized"] == normalized
    for variant, found in (("strict", strict), ("normalized", normalized)):
        assert bool(found) is names_article(reflection, title, variant)  # type: ignore[arg-type]


def test_the_registry_gives_hotpotqa_its_span_rule_over_the_questions_supporting_articles() -> None:
    assert mention_spans("hotpotqa") is reflection_spans
    record = make_record(0, "Pete Doherty and jonny craig.", task="5adf2fa35542993344016c11")
    assert [(s.start, s.end, s.variant) for s in reflection_spans(record)] == [
        (17, 28, "normalized"),
        (0, 12, "strict"),
        (0, 12, "normalized"),
    ]
    assert reflection_spans(make_record(0, None, task="5adf2fa35542993344016c11")) == []
