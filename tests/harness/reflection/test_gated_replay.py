"""The gated condition end to end on real ALFWorld games, replayed from the committed five-condition cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.gate import GateStore
from harness.reflection.gated_memory import lessons_by_trial
from harness.records import TrialRecord, read_trials, records_without_timing
from harness.records.details import GateOutcome
from tests.finished_runs import play
from tests.in_process import run_module
from tests.runner import ROOT

CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """experiment=five_conditions_demo with strategy=[gated] (auto policy) alone, replayed with no model reachable."""
    return play(tmp_path_factory.mktemp("gated") / "run", "experiment=five_conditions_demo", "strategy=[gated]",
                "llm.cache.mode=replay", f"llm.cache.path={CACHE}")  # fmt: skip


def gated(run: Path) -> list[TrialRecord]:
    return [r for r in read_trials(run) if r.condition == "gated"]


@pytest.fixture(scope="module")
def replays(five_conditions_run: Path, alone: Path) -> list[Path]:
    """The gated condition in the README's six-condition demo (the session's run), and played alone."""
    return [five_conditions_run, alone]


def test_two_replays_agree_record_for_record(replays: list[Path]) -> None:
    first, second = (gated(run) for run in replays)
    assert first and records_without_timing(first) == records_without_timing(second)
    assert all(r.llm_calls == r.cache_hits for r in first)
    assert {r.condition for r in read_trials(replays[1])} == {"gated"}


def test_every_reflected_trial_records_what_was_proposed_dropped_and_approved(replays: list[Path]) -> None:
    reflected = [r for r in gated(replays[0]) if not r.success]
    assert reflected
    for record in reflected:
        outcome = record.reflection_details
        assert isinstance(outcome, GateOutcome) and outcome.policy == "auto"
        assert outcome.approved == [item.id for item in outcome.proposed], "auto approves every item that passed"
        assert all(item.quoted_turn.role == "environment" for item in outcome.proposed)
        assert all(drop.reason for drop in outcome.dropped)
        expected = " ".join(item.lesson for item in outcome.proposed) or None
        assert record.reflection == expected


def test_the_actor_read_only_what_the_gate_approved_in_earlier_trials(replays: list[Path]) -> None:
    records = gated(replays[0])
    for record in records:
        earlier = sorted(
            (r for r in records if r.task_id == record.task_id and r.trial < record.trial), key=lambda r: r.trial
        )
        approved = [r.reflection for r in earlier if r.reflection is not None]
        assert record.memory == approved[-3:]


def test_the_run_leaves_a_verified_store_whose_live_memory_is_the_approved_items(replays: list[Path]) -> None:
    store = GateStore.open(replays[0] / "gate" / "gated")
    assert store.verify().ok
    records = gated(replays[0])
    for task in {r.task_id for r in records}:
        approved = [r.reflection for r in sorted(records, key=lambda r: r.trial) if r.task_id == task and r.reflection]
        assert lessons_by_trial(store.live_memory(scope=task)) == approved
    dropped = sum(len(r.reflection_details.dropped) for r in records if isinstance(r.reflection_details, GateOutcome))
    assert len(store.dropped()) == dropped
    shown = run_module("harness.cli.gate", "verify", str(replays[0] / "gate" / "gated"))
    assert shown.returncode == 0 and shown.stdout.startswith("chain ok:")


HUMANEVAL_CACHE = ROOT / "tests" / "fixtures" / "humaneval" / "llm_cache.jsonl"
HUMANEVAL_GATED = (
    "env=humaneval",
    "env.problems=[HumanEval/0,HumanEval/10,HumanEval/32,HumanEval/129,HumanEval/145]",
    "strategy=[gated]",
    "strategy.gated.memory_window=1",
    "experiment.trials=2",
)


def test_gated_runs_on_humaneval_with_test_output_as_the_only_outside_evidence(tmp_path: Path) -> None:
    run = play(tmp_path / "run", "experiment=default", *HUMANEVAL_GATED, "llm.cache.mode=replay",
               f"llm.cache.path={HUMANEVAL_CACHE}")  # fmt: skip
    records = read_trials(run)
    assert len({r.task_id for r in records}) == 5
    reflected = [r for r in records if isinstance(r.reflection_details, GateOutcome)]
    assert reflected and all(not r.attempt_details or r.end_reason == "internal_tests_failed" for r in reflected)
    for record in reflected:
        outcome = record.reflection_details
        assert isinstance(outcome, GateOutcome)
        assert all(item.quoted_turn.role in {"user", "tests"} for item in outcome.proposed)
        # Without earlier lessons, turn 2 is the implementation: the agent's own turn, never evidence.
        if record.memory:
            continue
        cited_code = [
            d for d in outcome.dropped if isinstance(d.item, dict) and d.item.get("evidence", {}).get("turn") == 2
        ]
        assert all(d.reason == "not an outside turn" for d in cited_code)
    assert GateStore.open(run / "gate" / "gated").verify().ok
