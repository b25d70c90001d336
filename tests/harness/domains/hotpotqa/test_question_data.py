"""The shipped questions, Reflexion's context, the selection filters, the parser's signals and object mention."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.domains.hotpotqa.config import HotpotQAEnvConfig
from harness.domains.hotpotqa.mention import article_mention, article_name, names_article, task_target
from harness.records.hotpotqa import QuestionAttempt
from harness.domains.hotpotqa.questions import load_questions, questions_by_id, select_questions
from harness.domains.hotpotqa.signals import failure_signals
from harness.errors import GameNotFoundError
from tests.runner import run_cli

MAINE = "5adfdef9554299025d62a36b"


def env(**filters: object) -> HotpotQAEnvConfig:
    return HotpotQAEnvConfig(name="hotpotqa", **filters)  # type: ignore[arg-type]


def test_the_shipped_questions_are_reflexions_hundred() -> None:
    questions = load_questions()
    assert len(questions) == 100 == len({q.id for q in questions})
    assert questions[0].id == "5a7613c15542994ccc9186bf"
    assert {q.type for q in questions} == {"bridge", "comparison"} and {q.level for q in questions} == {"hard"}
    # Every supporting fact names one of the question's ten articles.
    assert all(set(q.supporting_facts.title) <= set(q.context.title) for q in questions)


def test_the_context_repeats_an_article_once_per_supporting_fact() -> None:
    maine = questions_by_id()[MAINE]
    assert maine.supporting_facts.title.count("Maine gubernatorial election, 1820") == 3
    paragraphs = maine.supporting_context().split("\n\n")
    assert len(paragraphs) == 4 and paragraphs[0] == paragraphs[1] == paragraphs[2] != paragraphs[3]
    assert maine.supporting_titles() == ["Maine gubernatorial election, 1820", "William King (governor)"]


def test_selection_by_id_type_level_and_first_n_keeps_the_shipped_order() -> None:
    ids = [q.id for q in load_questions()]
    assert [q.id for q in select_questions(env(questions=[ids[5], ids[2]]))] == [ids[2], ids[5]]
    comparison = select_questions(env(types=["comparison"]))
    assert len(comparison) == 15 and all(q.type == "comparison" for q in comparison)
    assert [q.id for q in select_questions(env(types=["bridge"], first_n=2))] == [
        q.id for q in load_questions() if q.type == "bridge"
    ][:2]
    assert len(select_questions(env(levels=["hard"]))) == 100


def test_an_unknown_id_or_an_empty_selection_is_one_sentence() -> None:
    with pytest.raises(GameNotFoundError, match=r"'5a7613c1554299' is not a shipped HotpotQA question id.*closest"):
        select_questions(env(questions=["5a7613c1554299"]))
    with pytest.raises(GameNotFoundError, match="select no question"):
        select_questions(env(levels=["easy"]))


def attempt(
    action: str | None, answer: str | None, earlier: list[str], action_type: str | None = "Finish"
) -> QuestionAttempt:
    return QuestionAttempt(
        thought="t", action=action, action_type=action_type, answer=answer, earlier_answers=earlier, scratchpad=""
    )


def test_failure_signals_need_no_answer_key() -> None:
    context = questions_by_id()[MAINE].supporting_context()
    assert failure_signals(attempt("The answer is Bath.", None, [], None), context) == [
        "The action `The answer is Bath.` does not parse as Type[argument], so no answer was given."
    ]
    assert failure_signals(attempt("Search[Bath]", None, [], "Search"), context) == [
        "The action `Search[Bath]` is not Finish[answer], the only action there is: no answer was given."
    ]
    assert failure_signals(attempt(None, None, [], None), context) == ["The trial ended before an action was given."]
    # Found in the context after normalization (case, punctuation), and not given before: nothing to say.
    assert failure_signals(attempt("Finish[william king]", "william king", ["Portland"]), context) == []
    assert failure_signals(attempt("Finish[The Portland]", "The Portland", ["portland!"]), context) == [
        "The answer `The Portland` repeats an answer given in an earlier trial.",
        "The answer `The Portland` does not occur in the context.",
    ]
    # Whole words only: "King" occurs, "Kin" does not.
    assert failure_signals(attempt("Finish[Kin]", "Kin", []), context) == [
        "The answer `Kin` does not occur in the context."
    ]


def test_object_mention_names_a_supporting_article() -> None:
    assert task_target(MAINE) == "Maine gubernatorial election, 1820 | William King (governor)"
    assert article_name("William King (governor)") == "William King"
    assert names_article("William King was from Bath.", "William King (governor)", "strict")
    assert not names_article("william king was from Bath.", "William King (governor)", "strict")
    assert names_article("william king, a governor", "William King (governor)", "normalized")
    assert not names_article("William Kingsley", "William King (governor)", "normalized")
    counts = article_mention(
        ["The Maine gubernatorial election, 1820 was the first.", "the maine gubernatorial election 1820", "Bath."],
        questions_by_id()[MAINE].supporting_titles(),
    )
    assert (counts.reflections, counts.strict, counts.normalized) == (3, 1, 2)
    with pytest.raises(ValueError, match="not a shipped HotpotQA question id"):
        task_target("nope")


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("env.questions=[5a7613c1554299]", "error: env.questions: '5a7613c1554299' is not a shipped HotpotQA question"),
        ("env.types=[bogus]", "error: env.types.0 = 'bogus' is invalid: Input should be 'bridge' or 'comparison'."),
        ("env.levels=[easy]", "together select no question"),
    ],
)
def test_bad_hotpotqa_input_on_the_command_line_is_one_sentence_and_writes_nothing(
    override: str, needle: str, tmp_path: Path
) -> None:
    run_dir, cache = tmp_path / "run", tmp_path / "cache.jsonl"
    result = run_cli("env=hotpotqa", override, f"hydra.run.dir={run_dir}", f"llm.cache.path={cache}")
    assert result.returncode == 2 and needle in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not run_dir.exists() and not cache.exists()
