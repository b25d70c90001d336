"""The five-condition comparison replayed from a committed cache recorded with the embedded models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records import read_trials, records_without_timing
from harness.records.details import ExtractedSignals, TemplateParts
from harness.domains.alfworld.identity import record_identity
from harness.metrics.run import METRICS_FILE
from tests.finished_runs import play
from tests.runner import ROOT

CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"
CONDITIONS = ["self_diagnosis", "no_memory", "grounded_template", "programmatic", "model_swap"]
GAMES = 3
TRIALS = 3

pytestmark = pytest.mark.slow


def conditions_table(summary: str) -> str:
    """The '## Conditions' section of summary.md."""
    return summary.split("## Conditions", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory, five_conditions_run: Path) -> list[Path]:
    """experiment=five_conditions_demo replayed here with no model reachable, and the README's six-condition demo
    (the session's run: the same five conditions and the gated one)."""
    five = play(tmp_path_factory.mktemp("five") / "run", "experiment=five_conditions_demo", "llm.cache.mode=replay",
                f"llm.cache.path={CACHE}")  # fmt: skip
    return [five, five_conditions_run]


def test_the_replayed_table_is_identical_on_two_runs(replays: list[Path]) -> None:
    first, second = (conditions_table((run / "summary.md").read_text()) for run in replays)
    rows = [line for line in first.splitlines() if line.startswith("| ") and not line.startswith("| condition")]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == CONDITIONS
    assert all(f"/{GAMES} (" in row.split(" | ")[2] for row in rows)
    assert all(row in second.splitlines() for row in rows), "a condition's row changed beside the gated condition"


def test_replays_agree_record_for_record_and_metric_for_metric(replays: list[Path]) -> None:
    first, second = (read_trials(run) for run in replays)
    assert records_without_timing(first) == records_without_timing([r for r in second if r.condition in CONDITIONS])
    five, six = (json.loads((run / METRICS_FILE).read_text())["conditions"] for run in replays)
    assert five == [c for c in six if c["condition"] in CONDITIONS]
    assert all(r.llm_calls == r.cache_hits for r in first)


def test_every_condition_played_every_game_until_solved_or_out_of_trials(replays: list[Path]) -> None:
    records = read_trials(replays[0])
    for condition in CONDITIONS:
        mine = [r for r in records if r.condition == condition]
        assert len({r.task_id for r in mine}) == GAMES
        for task in {r.task_id for r in mine}:
            trials = sorted(r.trial for r in mine if r.task_id == task)
            won = [r.trial for r in mine if r.task_id == task and r.success]
            assert trials == list(range(won[0] + 1 if won else TRIALS))


def test_each_condition_leaves_its_own_kind_of_memory(replays: list[Path]) -> None:
    records = read_trials(replays[0])
    by_condition = {c: [r for r in records if r.condition == c] for c in CONDITIONS}
    failed = {c: [r for r in rs if not r.success] for c, rs in by_condition.items()}
    assert all(r.reflection is None and r.memory == [] for r in by_condition["no_memory"])
    assert all(r.reflection is not None and r.reflection_details is None for r in failed["self_diagnosis"])
    for record in failed["programmatic"]:
        assert isinstance(record.reflection_details, ExtractedSignals)
        # A failed episode ends on the repeated-action stop or the spent budget: both are signals.
        assert record.reflection_details.signals.has_failures
    for record in failed["grounded_template"]:
        parts = record.reflection_details
        assert isinstance(parts, TemplateParts)
        assert (record.reflection is None) == parts.malformed
        if not parts.malformed:
            assert record.reflection.startswith(f"FAILED STEP: {parts.failed_step}\n")
            assert parts.matched_step is not None and 1 <= parts.matched_step <= record.steps
    swap = by_condition["model_swap"]
    assert {(r.actor_model, r.reflector_model) for r in swap} == {("smollm2-135m", "smollm2-135m")}
    assert {r.actor_model for c in CONDITIONS[:4] for r in by_condition[c]} == {"qwen2.5-coder-1.5b"}


def test_the_actor_reads_the_memory_its_condition_wrote(replays: list[Path]) -> None:
    records = {(r.task_id, r.condition, r.trial): r for r in read_trials(replays[0])}
    for (task, condition, trial), record in records.items():
        if condition == "no_memory":
            continue
        written = [records[(task, condition, t)].reflection for t in range(trial)]
        assert record.memory == [r for r in written if r is not None][-3:]


def test_metrics_json_holds_numerators_and_denominators(replays: list[Path]) -> None:
    metrics = json.loads((replays[0] / METRICS_FILE).read_text())
    assert [c["condition"] for c in metrics["conditions"]] == CONDITIONS
    for condition in metrics["conditions"]:
        totals = condition["totals"]
        assert totals["tasks"] == GAMES and 0 <= totals["solved"] <= GAMES
        assert set(totals["mentions"]) == {"reflections", "strict", "normalized"}
        assert [s["convention"] for s in condition["spearman"]] == ["tasks_with_rrr", "tasks_with_memory_rrr0"]


def test_each_reflection_carries_its_task_identity_and_metrics_count_them(replays: list[Path]) -> None:
    records = read_trials(replays[0])
    written = [r for r in records if r.reflection is not None]
    assert written and all(r.reflection_identity is not None for r in written)
    assert all(r.reflection_identity == record_identity(r) for r in written)  # the record keeps the rule's label
    metrics = json.loads((replays[0] / METRICS_FILE).read_text())
    for condition in metrics["conditions"]:
        identity, mine = condition["totals"]["identity"], [r for r in written if r.condition == condition["condition"]]
        assert identity["reflections"] == len(mine)
        for label in ("on_task", "off_task", "vacuous"):
            share = identity[label]
            assert share["count"] == sum(r.reflection_identity.label == label for r in mine)
            if mine:
                assert share["low"] <= share["share"] <= share["high"]
    labels = {r.reflection_identity.label for r in written}
    assert len(labels) >= 2  # the replay's conditions do not all say the same thing
