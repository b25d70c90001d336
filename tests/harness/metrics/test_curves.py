"""Threshold curves: each point is what run_metrics counts at that pair of thresholds."""

from __future__ import annotations

import pytest

from harness.metrics.curves import FROZEN_GRID, SIMILARITY_GRID, grid, threshold_curves
from harness.metrics.run import run_metrics
from harness.metrics.thresholds import Thresholds
from harness.records import RunPlan, TrialRecord
from tests.harness.metrics.test_repeats import two_tasks_two_repeats
from tests.harness.metrics.test_thresholds import records as threshold_records

PLAN = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=4, repeats=2)


def all_records() -> list[TrialRecord]:
    return two_tasks_two_repeats() + threshold_records()


def memories(records: list[TrialRecord]) -> dict[str, list[list[str]]]:
    chains: dict[str, dict[int, list[str]]] = {}
    for r in sorted(records, key=lambda r: (r.task_id, r.repeat, r.trial)):
        memory = chains.setdefault(r.task_id, {}).setdefault(r.repeat, [])
        if r.reflection is not None:
            memory.append(r.reflection)
    return {task: list(by_repeat.values()) for task, by_repeat in chains.items()}


@pytest.mark.parametrize("thresholds", [Thresholds(), Thresholds(similarity_threshold=0.8, frozen_threshold=0.4)])
def test_every_point_equals_the_frozen_share_run_metrics_counts(thresholds: Thresholds) -> None:
    records = all_records()
    targets = {r.task_id: "SaltShaker" for r in records}
    curves = threshold_curves("self_diagnosis", memories(records), thresholds)
    assert curves.tasks == 4
    points = [*curves.similarity, *curves.frozen]
    assert len(points) == len(curves.similarity) + len(curves.frozen) >= 12
    for point in points:
        at = Thresholds(similarity_threshold=point.similarity_threshold, frozen_threshold=point.frozen_threshold)
        totals = run_metrics(records, PLAN, targets, thresholds=at).conditions[0].totals
        assert (point.frozen_tasks, curves.tasks) == (totals.frozen, totals.rrr_defined)
        assert point.frozen_share == pytest.approx(totals.frozen_share)


def test_the_curves_move_over_the_grid() -> None:
    curves = threshold_curves("c", memories(all_records()), Thresholds())
    assert len({p.frozen_share for p in curves.similarity}) > 1
    assert len({p.frozen_share for p in curves.frozen}) > 1


def test_the_grid_holds_the_ranges_and_the_set_value() -> None:
    assert grid(SIMILARITY_GRID, 0.85) == [0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    assert grid(SIMILARITY_GRID, 0.82)[3] == 0.82
    assert (grid(FROZEN_GRID, 0.5)[0], grid(FROZEN_GRID, 0.5)[-1]) == (0.3, 0.7)
