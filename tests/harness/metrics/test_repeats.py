"""Repeats pooled per task: each (task, repeat) is a chain measured alone, a task counts once in every denominator."""

from __future__ import annotations

import pytest

from harness.metrics.core import task_metrics
from harness.metrics.repeats import pool_repeats
from harness.metrics.run import RunMetrics, run_metrics
from harness.records import RunPlan, TrialRecord
from tests.harness.factories import make_record

SAME = "Go to cabinet 1, take the SaltShaker, put it in cabinet 2."
OTHER = [
    "Open the fridge first and look for the apple there.",
    "I should have checked every drawer on the left side before the shelves.",
    "Turn on the lamp, then examine the bowl under it carefully.",
]


def chain(task: str, repeat: int, reflections: list[str | None], solved_at: int | None = None) -> list[TrialRecord]:
    records = []
    for trial, reflection in enumerate(reflections):
        won = trial == solved_at
        record = make_record(trial, None if won else reflection, won, task)
        records.append(record.model_copy(update={"repeat": repeat}))
    return records


def two_tasks_two_repeats() -> list[TrialRecord]:
    """a: one chain frozen and unsolved, one new every time and solved; b: one solved at once, one frozen."""
    return [
        *chain("a", 0, [SAME, SAME, SAME]),
        *chain("a", 1, [OTHER[0], OTHER[1], None], solved_at=2),
        *chain("b", 0, [None], solved_at=0),
        *chain("b", 1, [SAME, SAME, SAME]),
    ]


PLAN = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=3, repeats=2)
TARGETS = {"a": "SaltShaker", "b": "SaltShaker"}


def test_two_tasks_of_two_repeats_count_as_two_tasks() -> None:
    report = run_metrics(two_tasks_two_repeats(), PLAN, TARGETS).conditions[0]
    assert report.totals.tasks == 2
    assert [t.task_id for t in report.tasks] == ["a", "b"]
    assert [t.repeats for t in report.tasks] == [2, 2]
    assert report.totals.repeats == 2


def test_a_task_pools_its_chains_rrr_frozen_and_solved() -> None:
    a, b = run_metrics(two_tasks_two_repeats(), PLAN, TARGETS).conditions[0].tasks
    # a: chain 0 repeats everything (RRR 1), chain 1 never (RRR 0); the mean is over both, and frozen is that mean's.
    assert (a.rrr, a.frozen, a.solved_share) == (0.5, True, 0.5)
    assert (a.trials, a.reflections, a.solved_trial) == (6, 5, 2)
    # b: chain 0 has no reflection (RRR undefined), so the mean is chain 1's alone.
    assert (b.rrr, b.frozen, b.solved_share) == (1.0, True, 0.5)
    assert b.solved_trial == 0


def test_condition_totals_pool_tasks_not_chains() -> None:
    """solved_share is a mean of per-task shares of chains; frozen_share is frozen tasks / tasks with an RRR, so two
    tasks each frozen by its mean RRR read 2/2 = 1.0, not the 0.5 of chains frozen."""
    totals = run_metrics(two_tasks_two_repeats(), PLAN, TARGETS).conditions[0].totals
    assert (totals.solved_share, totals.frozen_share) == (0.5, 1.0)
    assert (totals.rrr_defined, totals.mean_rrr) == (2, 0.75)
    assert (totals.solved, totals.frozen) == (2, 2)
    assert totals.mentions.reflections == 8


def test_the_same_chains_as_four_tasks_would_count_four() -> None:
    """What counting repeats as tasks gives: the denominators the pooled figures must not have."""
    as_tasks = [
        r.model_copy(update={"task_id": f"{r.task_id}{r.repeat}", "repeat": 0}) for r in two_tasks_two_repeats()
    ]
    targets = {f"{task}{k}": "SaltShaker" for task in TARGETS for k in (0, 1)}
    totals = run_metrics(as_tasks, PLAN, targets).conditions[0].totals
    assert (totals.tasks, totals.solved, totals.frozen, totals.rrr_defined) == (4, 2, 2, 3)
    pooled = run_metrics(two_tasks_two_repeats(), PLAN, TARGETS).conditions[0].totals
    assert (pooled.tasks, pooled.rrr_defined) != (totals.tasks, totals.rrr_defined)


def test_one_chain_keeps_todays_figures_and_shares_of_zero_or_one() -> None:
    records = chain("a", 0, [SAME, SAME, SAME])
    single = task_metrics(records, "SaltShaker")
    assert pool_repeats([single]) == single
    assert (single.repeats, single.frozen, single.solved_share) == (1, True, 0.0)


def test_task_metrics_refuses_records_of_two_repeats() -> None:
    with pytest.raises(ValueError, match="in one repeat"):
        task_metrics(chain("a", 0, [SAME]) + chain("a", 1, [SAME]), "SaltShaker")


def test_a_metrics_file_written_before_repeats_reads_its_shares_from_its_counts() -> None:
    metrics = run_metrics(chain("a", 0, [SAME, SAME]) + chain("b", 0, [None], solved_at=0), PLAN, TARGETS)
    data = metrics.model_dump(mode="json")
    del data["thresholds"]
    for condition in data["conditions"]:
        for part in (condition["totals"], *condition["tasks"]):
            for field in ("repeats", "solved_share"):
                del part[field]
    old = RunMetrics.model_validate(data)
    assert old == metrics


def test_frozen_share_is_over_tasks_with_an_rrr_and_undefined_without_one() -> None:
    """a frozen, b never reflected (RRR undefined), c new every time: 1 of the 2 tasks with an RRR, not 1 of 3; an
    old metrics.json's stored share (a mean over all tasks) reads under this definition; no RRR at all: None."""
    records = [*chain("a", 0, [SAME, SAME]), *chain("b", 0, [None], solved_at=0), *chain("c", 0, OTHER[:2])]
    targets = TARGETS | {"c": "SaltShaker"}
    metrics = run_metrics(records, PLAN, targets)
    totals = metrics.conditions[0].totals
    assert (totals.tasks, totals.frozen, totals.rrr_defined, totals.frozen_share) == (3, 1, 2, 0.5)
    data = metrics.model_dump(mode="json")
    data["conditions"][0]["totals"]["frozen_share"] = 1 / 3
    assert RunMetrics.model_validate(data).conditions[0].totals.frozen_share == 0.5
    silent = run_metrics(chain("b", 0, [None], solved_at=0), PLAN, TARGETS).conditions[0].totals
    assert (silent.rrr_defined, silent.frozen_share) == (0, None)
