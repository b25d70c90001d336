"""The held-out comparison of the two commands in docs/held-out-and-repeats.md, replayed from the committed answers of
one real run of the embedded SmolLM2-135M (tests/fixtures/held_out/): the control sends requests of its own, none the
selection run's, and the report's effects table pairs each condition with it over the selected questions."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.metrics.effects import EFFECTS_FILE, Effects
from harness.run.held_out import frozen_in_run
from harness.records import read_manifest, read_trials
from tests.runner import ROOT, run_cli

CACHE = ROOT / "tests" / "fixtures" / "held_out" / "llm_cache.jsonl"
REPLAY = ("llm.cache.mode=replay", f"llm.cache.path={CACHE}", "progress=false")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("held_out")
    select, held_out = root / "select", root / "held_out"
    first = run_cli("experiment=hotpotqa_held_out_select", *REPLAY, f"hydra.run.dir={select}")
    assert first.returncode == 0, first.stderr
    second = run_cli(
        "experiment=hotpotqa_held_out", f"env.frozen_in={select}", *REPLAY, f"hydra.run.dir={held_out}")
    assert second.returncode == 0, second.stderr
    return select, held_out


def test_the_comparison_plays_the_selection_runs_frozen_questions_and_shares_none_of_its_requests(
    runs: tuple[Path, Path],
) -> None:
    select, held_out = runs
    frozen = set(frozen_in_run(select))
    records = read_trials(held_out)
    assert frozen and {r.task_id for r in records} == frozen
    manifest = read_manifest(held_out)
    assert manifest is not None and manifest.selection is not None
    assert manifest.selection.path == str(select) and manifest.selection.basis == "calls"
    assert manifest.selection.shared == 0 and manifest.selection.compared == sum(len(r.calls) for r in records)
    selection_keys = {call.key for r in read_trials(select) for call in r.calls}
    control = [call for r in records if r.condition == "self_diagnosis" for call in r.calls]
    assert control and not {call.key for call in control} & selection_keys
    assert {call.temperature for call in control} == {0.7}


def test_the_effects_table_pairs_each_condition_with_the_fresh_control(runs: tuple[Path, Path]) -> None:
    _, held_out = runs
    effects = Effects.model_validate_json((held_out / EFFECTS_FILE).read_text())
    assert effects.control == "self_diagnosis"
    solved = {row.condition: row for row in effects.rows if row.measure == "solved"}
    assert set(solved) == {"no_memory", "grounded_template", "programmatic"}
    frozen = len(set(frozen_in_run(runs[0])))
    assert frozen >= 3, "fewer than 3 paired tasks give no interval"
    assert all(row.n == frozen and row.p is not None for row in solved.values())
    # Where the per-task differences vary, the difference has its bootstrap interval around it.
    varied = [row for row in effects.rows if row.n >= 3 and row.ci_low is not None]
    assert varied and all(row.ci_low <= row.difference <= row.ci_high and row.p is not None for row in varied)
    report = (held_out / "report.md").read_text()
    assert "Effects (paired over tasks, against self_diagnosis)" in report
