"""A reflection that names nothing of its question but describes another in that question's uncommon words is
off task (hotpotqa/4); one such word, the reflector's boilerplate, or this question's own words are not."""

from __future__ import annotations

import json

from harness.audit.reflection_boilerplate import reflection_boilerplate
from harness.domains.hotpotqa.described import BOILERPLATE_FILE, DESCRIBED_WEIGHT, described_words
from harness.domains.hotpotqa.identity import _vocabulary, reflection_identity
from harness.domains.hotpotqa.questions import load_questions

CHICKEN = next(q.id for q in load_questions() if "The chicken is a type of dance" in q.question)
OXENBOULD = next(q.id for q in load_questions() if "Ed Oxenbould plays Tyler" in q.question)
MAGAZINES = next(q.id for q in load_questions() if "Woman's Era and Naj" in q.question)
KENT_BAER = next(q.id for q in load_questions() if "Kent Baer" in q.question)
DANCE = (
    "My reasoning for the type of dance that the chicken is a change of pace of failed because I incorrectly assumed "
    "that it originated from the polka. In the future, I should research the dance's origins."
)


def test_another_questions_subject_in_common_words_is_off_task_with_its_words_as_evidence() -> None:
    identity = reflection_identity(DANCE, KENT_BAER)
    assert identity.label == "off_task", identity
    deciding = {e.text for e in identity.deciding()}
    assert {"chicken", "pace"} <= deciding and "failed" not in deciding
    for evidence in identity.evidence:
        assert DANCE[evidence.start : evidence.end] == evidence.text


def test_read_against_its_own_question_the_same_words_are_its_own() -> None:
    assert reflection_identity(DANCE, CHICKEN).label == "on_task"
    assert not {"chicken", "pace", "dance"} & {key for _, _, key, _ in described_words(DANCE, _vocabulary(CHICKEN, None))}


def test_one_uncommon_word_of_another_question_is_not_enough() -> None:
    text = "The question was asking for the number of schools, and I gave a response that was not a number."
    found = described_words(text, _vocabulary(MAGAZINES, None))
    assert [key for _, _, key, _ in found] == ["school"] and sum(w for *_, w in found) < DESCRIBED_WEIGHT
    assert reflection_identity(text, MAGAZINES).label == "vacuous"


def test_a_name_of_this_questions_paragraphs_keeps_common_words_from_describing_another() -> None:
    # A published reflection on its own question: the film it names is in this question's paragraphs (set aside, so
    # the rule reads it vacuous), and "made" and "cast" are other questions' words (4.6 each); it is no other question.
    text = (
        "I searched the wrong film title and got stuck in a loop where I kept trying to search 'Alexander and the "
        "Terrible, Horrible, No Good, Very Bad Day (2014)' but the page could not be found. Instead I should have "
        "tried to search the similar results that had a similar name to see if they were made in 2014. Additionally, "
        "I should have looked up the cast and crew of the film to find the director before attempting to answer."
    )
    assert sum(w for *_, w in described_words(text, _vocabulary(OXENBOULD, None))) >= DESCRIBED_WEIGHT
    assert reflection_identity(text, OXENBOULD).label == "vacuous"


def test_the_reflectors_boilerplate_describes_no_question() -> None:
    text = "I failed because I did not pay attention to the given name; I should include the full name in the future."
    assert described_words(text, _vocabulary(KENT_BAER, None)) == []
    assert reflection_identity(text, KENT_BAER).label == "vacuous"


def test_the_shipped_boilerplate_is_the_published_logs() -> None:
    shipped = json.loads(BOILERPLATE_FILE.read_text(encoding="utf-8"))
    assert shipped == reflection_boilerplate().model_dump()
    assert shipped["questions"] == 100 and {"failed", "given", "pay"} <= set(shipped["words"])
    assert not {"chicken", "gospel", "dance"} & set(shipped["words"])
