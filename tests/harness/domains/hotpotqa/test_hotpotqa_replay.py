"""experiment=hotpotqa_demo replayed from a committed cache recorded with the embedded models: every condition on
three of Reflexion's questions, judged by exact match, with no model reachable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records.hotpotqa import QuestionAttempt
from harness.domains.hotpotqa.mention import task_target
from harness.metrics.run import METRICS_FILE
from harness.records import read_trials, records_without_timing
from harness.records.details import GateOutcome, ListedSignals, TemplateParts
from tests.finished_runs import play
from tests.runner import ROOT

CACHE = ROOT / "tests" / "fixtures" / "hotpotqa" / "llm_cache.jsonl"
QUESTIONS = [
    "5a7613c15542994ccc9186bf",
    "5adf2fa35542993344016c11",
    "5adfdef9554299025d62a36b",
    "5ac097b05542996f0d89cc18",
]
CONDITIONS = ["self_diagnosis", "no_memory", "grounded_template", "programmatic", "model_swap", "gated"]
TRIALS = 3
DETAILS = {"programmatic": ListedSignals, "grounded_template": TemplateParts, "gated": GateOutcome}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory, hotpotqa_demo_run: Path) -> list[Path]:
    """experiment=hotpotqa_demo replayed twice with no model reachable: the session's run and once more here."""
    again = play(tmp_path_factory.mktemp("again") / "run", "experiment=hotpotqa_demo", "llm.cache.mode=replay",
                 f"llm.cache.path={CACHE}")  # fmt: skip
    return [hotpotqa_demo_run, again]


def test_two_replays_agree_record_for_record(replays: list[Path]) -> None:
    first, second = (read_trials(run) for run in replays)
    assert records_without_timing(first) == records_without_timing(second)
    assert (replays[0] / METRICS_FILE).read_text() == (replays[1] / METRICS_FILE).read_text()
    assert all(r.llm_calls == r.cache_hits > 0 for r in first)


def test_every_condition_answered_every_question_until_correct_or_out_of_trials(replays: list[Path]) -> None:
    records = read_trials(replays[0])
    for condition in CONDITIONS:
        mine = [r for r in records if r.condition == condition]
        assert sorted({r.task_id for r in mine}) == sorted(QUESTIONS)
        for task in QUESTIONS:
            trials = sorted((r for r in mine if r.task_id == task), key=lambda r: r.trial)
            won = [r.trial for r in trials if r.success]
            assert [r.trial for r in trials] == list(range(won[0] + 1 if won else TRIALS))
            for record in trials:
                attempt = record.attempt_details
                assert isinstance(attempt, QuestionAttempt) and record.task_text
                assert record.success == (record.end_reason == "correct")
                assert attempt.scratchpad.startswith(f"\nThought: {attempt.thought}")


def test_failed_trials_are_reflected_on_except_the_last_and_each_source_keeps_its_evidence(
    replays: list[Path],
) -> None:
    records = read_trials(replays[0])
    failed = [r for r in records if not r.success]
    assert any(r.trial < TRIALS - 1 for r in failed), "the recording should hold a failed trial before the last"
    for record in failed:
        if record.trial == TRIALS - 1 or record.condition == "no_memory":
            assert record.reflection is None and record.reflection_details is None
            continue
        kind = DETAILS.get(record.condition)
        if kind is None:
            # Reflexion's self-reflection, stored as format_step leaves it.
            assert record.reflection is not None and record.reflection == record.reflection.strip()
        else:
            assert isinstance(record.reflection_details, kind), record.condition
    # The actor reads every reflection written so far (Reflexion's CoT agent keeps them all).
    for record in records:
        if record.condition in ("self_diagnosis", "programmatic", "model_swap"):
            earlier = sorted(
                (r for r in records if r.key[:2] == record.key[:2] and r.trial < record.trial), key=lambda r: r.trial
            )
            assert record.memory == [r.reflection for r in earlier if r.reflection is not None]
    assert {r.actor_model for r in records if r.condition == "model_swap"} == {"smollm2-135m"}


def test_metrics_look_for_the_supporting_articles(replays: list[Path]) -> None:
    metrics = json.loads((replays[0] / METRICS_FILE).read_text())
    assert [c["condition"] for c in metrics["conditions"]] == CONDITIONS
    for condition in metrics["conditions"]:
        assert condition["totals"]["tasks"] == len(QUESTIONS)
        assert {t["task_id"]: t["target_object"] for t in condition["tasks"]} == {q: task_target(q) for q in QUESTIONS}
        reflections = condition["totals"]["mentions"]["reflections"]
        assert reflections == sum(t["reflections"] for t in condition["tasks"])
