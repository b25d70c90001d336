"""HotpotQA's diagnosis rules on planted cases: each rule says yes where it should and no where it should not, a bad
line is refused naming its field, and the spec wires the rules for records and lines alike."""

from __future__ import annotations

import re
from typing import Any

import pytest

from harness.domains.hotpotqa.diagnosis_claims import line_diagnosis
from harness.domains.hotpotqa.diagnosis_trial import question_facts
from harness.domains.hotpotqa.diagnosis_truth import em_format
from harness.domains.hotpotqa.questions import questions_by_id
from harness.domains.registry import domain_spec

VIVA = "5a7613c15542994ccc9186bf"  # bridge: VIVA Media AG -> GmbH -> Gesellschaft mit beschränkter Haftung
BANDS = "5adf2fa35542993344016c11"  # comparison: Jonny Craig or Pete Doherty


def line(task: str, answer: str | None, thought: str = "", reflection: str = "", **more: Any) -> dict[str, Any]:
    question = questions_by_id()[task]
    facts = [[f.title, 0, f.sentence] for f in question_facts(question)]
    return {"domain": "hotpotqa", "task": task, "question": question.question, "thought": thought,
            "answer": answer, "gold": question.answer, "supporting_facts": facts, "reflection": reflection, **more}  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("2011 Pulitzer Prize in General Nonfiction", "Pulitzer Prize", True),  # the gold inside more words
        ("Maine", "Bath, Maine", True),  # a broader form
        ("No, only Maxillaria is a genus of orchids.", "no", True),
        ("Sciences, Engineering, and Medicine", "Engineering", False),  # a list of guesses
        ("yes", "no", False),
        ("Vermont", "Virginia", False),
    ],
)
def test_em_format_is_the_answer_right_in_substance(answer: str, gold: str, expected: bool) -> None:
    assert em_format(answer, gold) is expected


def test_the_hop_where_a_bridge_trial_was_lost() -> None:
    stopped, _ = line_diagnosis(line(VIVA, "VIVA Media GmbH", "VIVA Media AG became VIVA Media GmbH."))
    assert (stopped.category, stopped.decisive_step) == ("stopped_at_bridge", 2)
    made_up, _ = line_diagnosis(line(VIVA, "Aktiengesellschaft Zürich", "It stands for something."))
    assert made_up.category == "unsupported_answer"
    right_form, _ = line_diagnosis(line(VIVA, "Gesellschaft mit beschränkter Haftung (GmbH)", "GmbH stands for it."))
    assert (right_form.category, right_form.decisive_step) == ("em_format", None)


def test_a_comparison_thought_that_misstates_a_nationality_is_decisive_there() -> None:
    truth, _ = line_diagnosis(line(BANDS, "Peter Doherty", "Both of them are French."))
    assert truth.category == "comparison_misread" and truth.decisive_step is not None
    plain, _ = line_diagnosis(line(BANDS, "Peter Doherty", "I need to count the bands."))
    assert plain.category == "comparison_misread" and plain.decisive_step is None


def test_what_a_reflection_claims() -> None:
    said = "I stopped at VIVA Media GmbH instead of answering what Gesellschaft mit beschränkter Haftung means."
    truth, claims = line_diagnosis(line(VIVA, "VIVA Media GmbH", reflection=said))
    assert claims.cause == "stopped_at_bridge" and truth.decisive_step in claims.claimed_steps
    assert not claims.confabulated
    invented = said.replace("VIVA Media GmbH", "VIVA Media GmbH in 1998, as Ernst Kessler said,")
    _, claims = line_diagnosis(line(VIVA, "VIVA Media GmbH", reflection=invented))
    assert {c.text for c in claims.claims if c.confabulated} == {"1998", "Ernst Kessler"}
    generic = line_diagnosis(line(VIVA, "VIVA Media GmbH", reflection="I should read more carefully next time."))[1]
    assert generic.cause is None and generic.claimed_steps == [] and not generic.confabulated


def test_claims_point_into_the_text_as_written() -> None:
    text = "My answer was too long for the exact-match grader; Gesell\u200bschaft mit beschränkter Haftung it is."
    _, claims = line_diagnosis(line(VIVA, "VIVA Media GmbH", reflection=text))
    assert claims.cause == "em_format"
    for claim in claims.claims:
        assert text[claim.start : claim.end] == claim.text


@pytest.mark.parametrize(
    ("change", "field"),
    [({"supporting_facts": []}, "supporting_facts"), ({"answer": 3}, "answer"), ({"thought": None}, "thought"),
     ({"supporting_facts": [["A", 0]]}, "supporting_facts[0]"), ({"type": "chain"}, "type")],  # fmt: skip
)
def test_a_bad_line_is_refused_naming_its_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=re.escape(field)):
        line_diagnosis({**line(VIVA, "GmbH"), **change})


def test_the_spec_wires_the_rules() -> None:
    spec = domain_spec("hotpotqa")
    assert spec.truth is not None and spec.claims is not None and spec.line_diagnosis is not None
    truth, claims = spec.line_diagnosis.load()(line(VIVA, "VIVA Media GmbH", reflection="Too long."))
    assert truth.rule.startswith("hotpotqa-truth/") and claims.rule.startswith("hotpotqa-claims/")
