"""Shares of reflections with intervals that resample tasks: wider than Wilson's over reflections when tasks differ,
none when every task is alike or too few, and near their nominal coverage of the share over tasks."""

from __future__ import annotations

import numpy as np
import pytest

from harness.metrics.core import MentionCounts, TaskMetrics
from harness.metrics.identity import IdentityCounts
from harness.metrics.intervals import wilson_interval
from harness.metrics.task_bootstrap import CONFIDENCE_LEVEL, MIN_TASKS_FOR_INTERVAL
from harness.metrics.task_shares import condition_task_shares, task_share


def test_nine_reflections_of_three_unlike_tasks_get_a_wider_interval_than_wilsons() -> None:
    share = task_share([(3, 3), (2, 3), (0, 3)])
    assert (share.count, share.reflections, share.tasks, share.share) == (5, 9, 3, pytest.approx(5 / 9))
    assert share.low is not None and share.high is not None and share.no_interval is None
    wilson_low, wilson_high = wilson_interval(5, 9)
    assert share.low <= share.share <= share.high
    # Over reflections the nine look like nine draws (26%-82%); three tasks as far apart as these support far less.
    assert share.high - share.low > wilson_high - wilson_low
    assert share.low < wilson_low and share.high > wilson_high


@pytest.mark.parametrize("per_task", [[(3, 3)] * 3, [(1, 3), (2, 6), (1, 3)], [(0, 2), (0, 4), (0, 1)]])
def test_tasks_alike_have_no_interval_and_say_so(per_task: list[tuple[int, int]]) -> None:
    # The case: 9 of 9 reflections from 3 tasks was 70%-100% over reflections. Every resample of tasks
    # alike gives the same share, so there is no spread to give an interval, and none is shown.
    share = task_share(per_task)
    assert (share.low, share.high, share.no_interval) == (None, None, "tasks alike")
    assert share.tasks == 3


def test_too_few_tasks_and_no_reflections() -> None:
    few = task_share([(3, 3), (0, 3)])
    assert (few.tasks, few.low, few.no_interval) == (2, None, "too few tasks")
    assert MIN_TASKS_FOR_INTERVAL == 3
    # A task without a reflection is nothing to resample: two tasks with one are still too few.
    assert task_share([(1, 2), (0, 0), (2, 2)]).no_interval == "too few tasks"
    empty = task_share([(0, 0), (0, 0)])
    assert (empty.share, empty.tasks, empty.no_interval) == (None, 0, "no reflections")


def _task(task_id: str, identity: IdentityCounts | None, strict: int, normalized: int, reflections: int) -> TaskMetrics:
    return TaskMetrics(
        task_id=task_id, condition="c", target_object="Mug", trials=reflections + 1, reflections=reflections,
        rrr=None, frozen=False, solved=False, solved_trial=None,
        mentions=MentionCounts(reflections=reflections, strict=strict, normalized=normalized), identity=identity,
    )  # fmt: skip


def test_a_conditions_shares_count_each_task_as_one_unit() -> None:
    tasks = [
        _task("a", IdentityCounts(reflections=3, on_task=3), 3, 3, 3),
        _task("b", IdentityCounts(reflections=3, on_task=1, vacuous=2), 0, 1, 3),
        _task("c", IdentityCounts(reflections=3, off_task=3), 0, 0, 3),
        _task("d", IdentityCounts(), 0, 0, 0),  # solved at once: no reflection, not a unit
    ]
    shares = condition_task_shares(tasks)
    assert shares.identity is not None
    on_task = shares.identity["on_task"]
    assert (on_task.count, on_task.reflections, on_task.tasks) == (4, 9, 3)
    assert on_task == task_share([(3, 3), (1, 3), (0, 3)])
    assert (shares.strict.count, shares.normalized.count, shares.strict.tasks) == (3, 4, 3)
    # A task without labels (a pooled run from before them): no identity shares, as metrics.json has none.
    assert condition_task_shares([*tasks[:3], _task("e", None, 0, 0, 2)]).identity is None


def test_the_interval_covers_the_share_over_tasks_near_its_nominal_level() -> None:
    """300 simulated conditions of 20 tasks, each task's share of its 2-9 reflections drawn uniformly (a strong
    task effect, as a model's reflections on one task are alike): the interval over tasks covers the mean share
    (1/2) near 95% of the time (0.92 here; 0.95 over 2,000 such conditions), Wilson's over reflections, which takes
    them as independent, far less often (0.75)."""
    rng = np.random.default_rng(1)
    covered = wilson_covered = 0
    studies = 300
    for _ in range(studies):
        reflections = rng.integers(2, 10, size=20)
        counts = rng.binomial(reflections, rng.uniform(size=20))
        share = task_share(list(zip(counts.tolist(), reflections.tolist())))
        assert share.low is not None and share.high is not None
        covered += share.low <= 0.5 <= share.high
        low, high = wilson_interval(int(counts.sum()), int(reflections.sum()))
        wilson_covered += low <= 0.5 <= high
    # The binomial error of a coverage near 0.95 over 300 studies is 0.013: a band of three either way.
    assert CONFIDENCE_LEVEL - 0.04 <= covered / studies <= CONFIDENCE_LEVEL + 0.035
    assert wilson_covered / studies < 0.85
