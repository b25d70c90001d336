"""HotpotQA's identity rule: a supporting article named (on_task), only other articles of the question (off_task),
none (vacuous)."""

from __future__ import annotations

import pytest

from harness.domains.hotpotqa.identity import reflection_identity
from harness.domains.hotpotqa.mention import article_name
from harness.domains.hotpotqa.questions import load_questions

QUESTION = load_questions()[0]


def test_the_three_labels() -> None:
    supporting = article_name(QUESTION.supporting_titles()[0])
    other = article_name(next(t for t in QUESTION.context.title if t not in QUESTION.supporting_titles()))
    assert reflection_identity(f"I should have read {supporting} first.", QUESTION.id).label == "on_task"
    off = reflection_identity(f"I relied on {other}.", QUESTION.id)
    assert off.label == "off_task" and other in off.deciding()[0].means
    assert reflection_identity("I should read the context more carefully.", QUESTION.id).label == "vacuous"


def test_an_unknown_question_is_refused() -> None:
    with pytest.raises(ValueError, match="not a shipped HotpotQA question"):
        reflection_identity("text", "no-such-id")
