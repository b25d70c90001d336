"""HotpotQA's identity rule read on single reflections: this question's names (on_task), only names foreign to it
(off_task), no name (vacuous); normalised spellings; evidence spans into the text as written."""

from __future__ import annotations

import pytest

from harness.domains.hotpotqa.identity import reflection_identity
from harness.domains.hotpotqa.questions import load_questions

# "What stadium does the team who has Kent Baer as the defensive coordinator play its home games?"
KENT_BAER = next(q.id for q in load_questions() if "Kent Baer" in q.question)
CHRONICLE = next(q.id for q in load_questions() if "Chronicle of Philanthropy" in q.question)


def _check_spans(text: str, question: str, label: str, deciding: str | None = None, answer: str | None = None) -> None:
    identity = reflection_identity(text, question, answer)
    assert identity.label == label, identity
    for evidence in identity.evidence:
        assert text[evidence.start : evidence.end] == evidence.text
    if deciding is not None:
        assert deciding in [e.text for e in identity.deciding()]


@pytest.mark.parametrize(
    "text",
    [
        # Issue 39 item 10: the possessive once joined into "baers" and the reflection came out vacuous.
        "I looked up Kent Baer's home stadium but gave the name of a bowl game.",
        "I looked up the home stadium of Kent Baer but gave the name of a bowl game.",
        "I looked up Kent Baer\u2019s home stadium but gave the name of a bowl game.",
    ],
)
def test_a_possessive_names_its_entity(text: str) -> None:
    _check_spans(text, KENT_BAER, "on_task", "Kent Baer")


@pytest.mark.parametrize(
    ("text", "deciding"),
    [
        ("I looked up Kent\u200b Baer and his team's stadium.", "Kent\u200b Baer"),  # a zero-width space
        ("I looked up \uff2b\uff45\uff4e\uff54 \uff22\uff41\uff45\uff52 and his stadium.", None),  # fullwidth letters
        ("I looked up Ke\u00adnt Baer and his stadium.", "Ke\u00adnt Baer"),  # a soft hyphen
    ],
)
def test_invisible_and_fullwidth_characters_hide_no_name(text: str, deciding: str | None) -> None:
    _check_spans(text, KENT_BAER, "on_task", deciding)


def test_the_three_labels_and_what_decides_them() -> None:
    # A distractor title is still this question's; so is a wrong answer the attempt gave.
    _check_spans("I should have searched UNLV Rebels football first.", KENT_BAER, "on_task", "UNLV Rebels football")
    _check_spans("I answered Washington-Grizzly Stadium without checking.", KENT_BAER, "on_task",
                 "Washington-Grizzly Stadium", answer="Washington-Grizzly Stadium")  # fmt: skip
    # A few-shot example's entities, and another question's.
    _check_spans("I should have searched the Colorado orogeny and the High Plains.", KENT_BAER, "off_task", "High Plains")
    _check_spans("I compared the founding years of Arthur's Magazine and First for Women.", CHRONICLE, "off_task")
    _check_spans("I assumed the band Glass Cloud formed in Richmond, Virginia.", KENT_BAER, "off_task", "Glass Cloud")
    # Nothing named: advice, parser talk, a sentence's capitalised first word, empty.
    for text in ("I should read the question more carefully.", "Thoroughly check the answer.", "", "  \n"):
        _check_spans(text, KENT_BAER, "vacuous")


def test_a_name_met_on_the_way_stays_on_task() -> None:
    # A candidate beside this question's names, in the same sentence, is a step of the work on it.
    text = "I assumed Kent Baer coached the University of Montana, whose stadium is Washington-Grizzly Stadium."
    identity = reflection_identity(text, KENT_BAER)
    assert identity.label == "on_task"
    assert not any(e.counts for e in identity.evidence if e.kind == "other_name")


def test_a_line_without_the_attempts_answer_is_labelled_from_the_question_alone() -> None:
    assert reflection_identity("I answered 1999; the arena is older.", KENT_BAER).label == "vacuous"
    assert reflection_identity("I answered 1999; the arena is older.", KENT_BAER, "1999").label == "on_task"


def test_an_unknown_question_is_refused() -> None:
    with pytest.raises(ValueError, match="not a shipped HotpotQA question"):
        reflection_identity("text", "no-such-id")


@pytest.mark.parametrize(
    ("text", "deciding"),
    [
        # Issue 47 item 9: in capitals the names were foreign; written in lower case they hid.
        ("I should have searched when Antic Magazine stopped publishing and compared it with Atari.", "Atari"),
        ("i should have searched when antic magazine stopped publishing and compared it with atari.", "antic"),
        # Issue 48 item 7: another question's phrase, or a few-shot example's, names it without a capital.
        ("I only gave the start and end points of the original line of the railroad.", "original line of the railroad"),
        ("I was asked who was the first person to break the sound barrier.", "break the sound barrier"),
    ],
)
def test_another_questions_words_and_phrases_in_any_case_are_off_task(text: str, deciding: str) -> None:
    _check_spans(text, KENT_BAER, "off_task", deciding)


def test_this_questions_own_phrase_restated_is_on_task() -> None:
    # "What stadium does the team ... play its home games?": its phrase, no name.
    _check_spans("I gave the wrong stadium for the home games of the team.", KENT_BAER, "on_task", "home games")
    # The same words read by a question that does not have them describe the one that does (hotpotqa/4).
    _check_spans("I gave the wrong stadium for the home games of the team.", CHRONICLE, "off_task", "stadium")
    # A common phrase of two words names no other question ("given name" is one question's words).
    _check_spans("I should have given the full given name of the person.", KENT_BAER, "vacuous")
