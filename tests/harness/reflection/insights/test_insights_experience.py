"""A run's own records as ExpeL's experience, and ExpeL's folds over them."""

from __future__ import annotations

import random

from harness.records.insights import ExperienceTask, ExperienceTrial
from harness.reflection.insights import outcome, split_folds


def _task(name: str, *successes: bool) -> ExperienceTask:
    return ExperienceTask(id=name, task=name, trials=[ExperienceTrial(trajectory="t", success=s) for s in successes])


def test_outcomes_are_expels_three_groups() -> None:
    assert [outcome(_task("a", False, True)), outcome(_task("b", True)), outcome(_task("c", False, False))] == [
        "compare", "success", "fail",
    ]


def test_folds_deal_each_outcome_group_round_the_folds() -> None:
    tasks = [_task("c1", False, True), _task("s1", True), _task("c2", False, True), _task("f1", False),
             _task("s2", True), _task("f2", False)]
    folds = split_folds(tasks, 2, random.Random(42))
    assert sorted(sum(folds, [])) == sorted(t.id for t in tasks)
    for group in ("c", "s", "f"):  # each fold gets one of each pair
        assert [sum(task.startswith(group) for task in fold) for fold in folds] == [1, 1]
    assert folds == split_folds(tasks, 2, random.Random(42))  # the seed decides
