"""The similarity and frozen thresholds as settings: they reach the metrics, metrics.json and the tables' text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.metrics.core import most_similar_earlier, reflection_repetition_rate, rrr_of_matches
from harness.run.held_out import frozen_in_run
from harness.metrics.run import METRICS_FILE, RunMetrics, run_metrics, write_metrics
from harness.metrics.thresholds import Thresholds
from harness.records import RunPlan, TrialLog
from tests.harness.factories import make_record

SAME = "Go to cabinet 1, take the SaltShaker, put it in cabinet 2."
NEAR = "Go to cabinet 1, take the salt shaker, put it in the drawer 2."  # ratio with SAME between 0.7 and 0.85
NEW = ["Open the fridge first and look for the apple there.", "Turn on the lamp, then examine the bowl under it."]
PLAN = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=4)


def records():
    # third: RRR 1/3 (one repeat of three after the first); near: repeats only below 0.85.
    third = [make_record(t, r, task="third") for t, r in enumerate([SAME, SAME, *NEW])]
    near = [make_record(t, r, task="near") for t, r in enumerate([SAME, NEAR])]
    return third + near


TARGETS = {"third": "SaltShaker", "near": "SaltShaker"}


def frozen(thresholds: Thresholds) -> list[str]:
    tasks = run_metrics(records(), PLAN, TARGETS, thresholds=thresholds).conditions[0].tasks
    return [t.task_id for t in tasks if t.frozen]


def test_the_ratio_of_near_lies_between_the_similarity_thresholds_tried() -> None:
    (match,) = most_similar_earlier([SAME, NEAR])[1:]
    assert match is not None and 0.7 <= match.similarity < 0.85


def test_each_threshold_moves_which_tasks_are_frozen() -> None:
    assert frozen(Thresholds()) == []
    assert frozen(Thresholds(frozen_threshold=0.3)) == ["third"]
    assert frozen(Thresholds(similarity_threshold=0.7)) == ["near"]


def test_metrics_json_records_the_thresholds_measured_at(tmp_path: Path) -> None:
    thresholds = Thresholds(similarity_threshold=0.7, frozen_threshold=0.3)
    write_metrics(tmp_path, run_metrics(records(), PLAN, TARGETS, thresholds=thresholds))
    data = json.loads((tmp_path / METRICS_FILE).read_text())
    assert data["thresholds"] == {"similarity_threshold": 0.7, "frozen_threshold": 0.3}
    assert RunMetrics.model_validate(data).thresholds == thresholds


def test_the_rules_are_named_from_the_values() -> None:
    assert (Thresholds().repeat_rule, Thresholds().frozen_rule) == ("ratio >= 0.85", "RRR >= 0.5")
    assert Thresholds(frozen_threshold=0.35).frozen_rule == "RRR >= 0.35"


@pytest.mark.parametrize("threshold", [0.7, 0.75, 0.8, 0.85, 0.9, 0.95])
def test_rrr_from_the_matches_equals_rrr_at_each_threshold(threshold: float) -> None:
    memory = [SAME, NEAR, SAME, *NEW, NEAR]
    assert rrr_of_matches(most_similar_earlier(memory), threshold) == reflection_repetition_rate(memory, threshold)


def test_the_highlight_of_a_repeat_follows_the_run_threshold() -> None:
    (match,) = most_similar_earlier([SAME, NEAR], threshold=0.7)[1:]
    assert match is not None and match.repeats
    (default,) = most_similar_earlier([SAME, NEAR])[1:]
    assert default is not None and not default.repeats


def test_frozen_in_run_selects_at_the_thresholds_it_is_given(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    for record in records():
        log.append(record)
    assert frozen_in_run(tmp_path) == []
    assert frozen_in_run(tmp_path, frozen_threshold=0.3) == ["third"]
    assert frozen_in_run(tmp_path, similarity_threshold=0.7) == ["near"]


def test_frozen_in_run_counts_a_task_of_repeats_by_the_mean_rrr_of_its_chains(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    chains = {0: [SAME, SAME, SAME], 1: [SAME, *NEW]}  # RRR 1 and 0: the task's mean is 0.5
    for repeat, memory in chains.items():
        for trial, reflection in enumerate(memory):
            log.append(make_record(trial, reflection, task="pooled").model_copy(update={"repeat": repeat}))
    assert frozen_in_run(tmp_path) == ["pooled"]
    assert frozen_in_run(tmp_path, frozen_threshold=0.6) == []
