"""HumanEval problems: all 164 load offline, and selection by id and count."""

from __future__ import annotations

import pytest

from envs.humaneval import HumanEvalProblem, load_problems, select_problems
from harness.errors import GameNotFoundError


@pytest.fixture(scope="module")
def problems() -> list[HumanEvalProblem]:
    return load_problems()


def test_all_164_problems_load_in_order(problems: list[HumanEvalProblem]) -> None:
    assert len(problems) == 164
    assert [p.task_id for p in problems] == [f"HumanEval/{n}" for n in range(164)]
    first = problems[0]
    assert first.entry_point == "has_close_elements"
    assert first.prompt.startswith("from typing import List")
    assert "def check(candidate):" in first.test
    assert all(f"def {p.entry_point}" in p.prompt for p in problems)


def test_select_by_ids_keeps_the_problem_order(problems: list[HumanEvalProblem]) -> None:
    selected = select_problems(problems, ids=["HumanEval/10", "HumanEval/2"])
    assert [p.task_id for p in selected] == ["HumanEval/2", "HumanEval/10"]


def test_select_first_n_and_both(problems: list[HumanEvalProblem]) -> None:
    assert [p.task_id for p in select_problems(problems, first_n=3)] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    both = select_problems(problems, ids=["HumanEval/5", "HumanEval/7", "HumanEval/9"], first_n=2)
    assert [p.task_id for p in both] == ["HumanEval/5", "HumanEval/7"]
    assert select_problems(problems) == problems


def test_unknown_id_is_one_sentence_naming_it_and_the_accepted_form(problems: list[HumanEvalProblem]) -> None:
    with pytest.raises(GameNotFoundError) as raised:
        select_problems(problems, ids=["HumanEval/0", "humaneval-12"])
    message = str(raised.value)
    assert "'humaneval-12'" in message
    assert "'HumanEval/0'" in message
    assert message.endswith(".") and "\n" not in message


def test_negative_first_n_is_refused(problems: list[HumanEvalProblem]) -> None:
    with pytest.raises(ValueError, match="first_n"):
        select_problems(problems, first_n=-1)
