"""HumanEval replayed from a committed cache recorded with the embedded model: real sandbox, real check()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records import read_trials, records_without_timing
from harness.records.details import ExtractedCodeSignals
from harness.metrics.run import METRICS_FILE
from tests.finished_runs import play
from tests.runner import ROOT

CACHE = ROOT / "tests" / "fixtures" / "humaneval" / "llm_cache.jsonl"
PROBLEMS = ["HumanEval/0", "HumanEval/10", "HumanEval/32", "HumanEval/129", "HumanEval/145"]
CONDITIONS = ["self_diagnosis", "programmatic"]
TRIALS = 2  # experiment=humaneval_demo: Reflexion's max_iters

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory, humaneval_demo_run: Path) -> list[Path]:
    """experiment=humaneval_demo replayed twice with no model reachable: the session's run and once more here."""
    again = play(tmp_path_factory.mktemp("again") / "run", "experiment=humaneval_demo", "llm.cache.mode=replay",
                 f"llm.cache.path={CACHE}")  # fmt: skip
    return [humaneval_demo_run, again]


def test_two_replays_agree_record_for_record(replays: list[Path]) -> None:
    first, second = (read_trials(run) for run in replays)
    assert records_without_timing(first) == records_without_timing(second)
    assert (replays[0] / METRICS_FILE).read_text() == (replays[1] / METRICS_FILE).read_text()
    assert all(r.llm_calls == r.cache_hits > 0 for r in first)


def test_the_summary_states_the_mention_rule_of_code_not_of_alfworld(replays: list[Path]) -> None:
    summary = (replays[0] / "summary.md").read_text()
    assert "HumanEval: the object is a failed test case" in summary and "CamelCase" not in summary


def test_both_conditions_ran_every_problem_with_its_tests_and_verdicts(replays: list[Path]) -> None:
    records = read_trials(replays[0])
    for condition in CONDITIONS:
        mine = [r for r in records if r.condition == condition]
        assert sorted({r.task_id for r in mine}) == sorted(PROBLEMS)
        for record in mine:
            details = record.attempt_details
            assert details is not None and record.steps == 1
            assert (details.internal_tests is not None) == (record.trial == 0)
            assert record.trajectory[0].observation.startswith("Tested passed:")
            # check() runs when the internal tests passed, and on the last trial's code whatever they said.
            checked = record.end_reason == "internal_tests_passed" or record.trial == TRIALS - 1
            assert (details.check_status is not None) == checked
            assert record.success == (details.check_status == "passed")


def test_failed_trials_are_reflected_on_and_programmatic_keeps_its_signals(replays: list[Path]) -> None:
    records = read_trials(replays[0])
    failed = [r for r in records if r.end_reason == "internal_tests_failed" and not r.success]
    assert failed, "the recording should hold at least one failed implementation"
    for record in failed:
        # Reflexion reflects only before a new implementation: never after the last one.
        assert (record.reflection is not None) == (record.trial < TRIALS - 1)
        if record.reflection is None:
            continue
        if record.condition == "programmatic":
            assert isinstance(record.reflection_details, ExtractedCodeSignals)
            assert record.reflection_details.signals.has_failures


def test_metrics_count_object_mention_against_failed_test_cases(replays: list[Path]) -> None:
    metrics = json.loads((replays[0] / METRICS_FILE).read_text())
    assert [c["condition"] for c in metrics["conditions"]] == CONDITIONS
    for condition in metrics["conditions"]:
        assert condition["totals"]["tasks"] == len(PROBLEMS)
        assert {t["target_object"] for t in condition["tasks"]} == {"a failed test case"}
        reflections = condition["totals"]["mentions"]["reflections"]
        assert reflections == sum(t["reflections"] for t in condition["tasks"])
