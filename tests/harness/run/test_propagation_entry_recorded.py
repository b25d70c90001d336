"""The entry study as recorded with the embedded critic (tests/fixtures/propagation_entry/), replayed with no model:
each recorded reflection shown to an empty library, the table committed beside the cache printed again by the run
and by the trace command from entry.json alone."""

from __future__ import annotations

import json
from pathlib import Path

from harness.records.propagation import ENTRY_FILE, EntryStudy
from tests.in_process import run_in_process, run_module
from tests.runner import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "propagation_entry"
ENVS: list[str] = json.loads((FIXTURE / "envs.json").read_text())


def test_the_recorded_reflections_replay_to_the_committed_table(tmp_path: Path) -> None:
    no_models = tmp_path / "no-models"
    no_models.mkdir()
    result = run_in_process(
        "experiment=propagation_entry", "scenario.cache.mode=replay", f"scenario.cache.path={FIXTURE / 'llm_cache.jsonl'}",
        f"scenario.envs=[{','.join(ENVS)}]", f"hydra.run.dir={tmp_path / 'run'}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert list(no_models.iterdir()) == [], "the replay assembled or loaded a model"
    committed = (FIXTURE / "table.md").read_text()
    assert result.stdout == committed
    study = EntryStudy.model_validate_json((tmp_path / "run" / ENTRY_FILE).read_text())
    assert [item.task.experience.id for item in study.items] == ENVS and study.max_tokens == 512
    # Each critique read one reflection, on an empty library (ExpeL shows it as a lone "1. ").
    assert all(len(item.ledger.steps) == 1 and item.ledger.steps[0].critique.reflections for item in study.items)
    assert run_module("harness.cli.trace", str(tmp_path / "run")).stdout == committed
