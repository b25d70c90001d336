"""Shares of reflections as a mean over tasks, each task counted once, with an interval over tasks: wider than
Wilson's over reflections when tasks differ, one even where every task is alike (an exact statement of what so few
tasks support), and near or above its nominal coverage of the mean share."""

from __future__ import annotations

import numpy as np
import pytest

from harness.metrics.core import MentionCounts, TaskMetrics
from harness.metrics.identity import IdentityCounts
from harness.metrics.intervals import CONFIDENCE, clopper_pearson, wilson_interval
from harness.metrics.task_shares import condition_task_shares, task_share


def test_the_share_is_the_mean_over_tasks_not_the_reflections_pooled() -> None:
    # A task that failed often writes many reflections; pooled, it would outweigh the others: 7/10 here, where the
    # tasks' own shares are 1/1, 0/3 and 6/6, a mean of 2/3.
    share = task_share([(1, 1), (0, 3), (6, 6)])
    assert (share.count, share.reflections, share.tasks) == (7, 10, 3)
    assert share.share == pytest.approx(2 / 3)


def test_nine_reflections_of_three_unlike_tasks_get_a_wider_interval_than_wilsons() -> None:
    share = task_share([(3, 3), (2, 3), (0, 3)])
    assert (share.count, share.reflections, share.tasks, share.share) == (5, 9, 3, pytest.approx(5 / 9))
    assert share.low is not None and share.high is not None and share.no_interval is None
    assert (share.low, share.high) == pytest.approx(clopper_pearson(5 / 3, 3))
    wilson_low, wilson_high = wilson_interval(5, 9)
    # Over reflections the nine look like nine draws (26%-82%); three tasks as far apart as these support far less.
    assert share.low < wilson_low and share.high > wilson_high


@pytest.mark.parametrize("per_task", [[(3, 3)] * 3, [(3, 3), (6, 6), (3, 3)]])
def test_tasks_alike_still_get_the_interval_three_tasks_support(per_task: list[tuple[int, int]]) -> None:
    # 9 of 9 reflections from 3 tasks was 70%-100% by Wilson over reflections, then no interval at all ("tasks
    # alike"); three tasks all at 100% support 29%-100% (Clopper-Pearson's 3 of 3, two-sided 95%).
    share = task_share(per_task)
    assert (share.share, share.tasks, share.no_interval) == (1.0, 3, None)
    assert share.high == 1.0 and share.low == pytest.approx(0.025 ** (1 / 3))


def test_one_task_has_an_interval_and_no_reflections_none() -> None:
    one = task_share([(3, 3), (0, 0)])
    assert (one.tasks, one.share, one.high, one.no_interval) == (1, 1.0, 1.0, None)
    assert one.low == pytest.approx(0.025)
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
    assert on_task.share == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert (shares.strict.count, shares.normalized.count, shares.strict.tasks) == (3, 4, 3)
    # A task without labels (a pooled run from before them): no identity shares, as metrics.json has none.
    assert condition_task_shares([*tasks[:3], _task("e", None, 0, 0, 2)]).identity is None


def test_the_interval_covers_the_share_over_tasks_at_least_at_its_level() -> None:
    """300 simulated conditions of 20 tasks, each task's share of its 2-9 reflections drawn uniformly (a strong
    task effect, as a model's reflections on one task are alike): the interval over tasks covers the mean share
    (1/2) at least 95% of the time, Wilson's over reflections, which takes them as independent, far less often.
    tests/harness/metrics/test_interval_coverage.py holds it at 3, 5, 10 and 20 tasks in skewed designs too."""
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
    assert covered / studies >= CONFIDENCE
    assert wilson_covered / studies < 0.85
