"""The propagation study as recorded once with the embedded critic (tests/fixtures/propagation/), replayed with no
model: every build of the design, the plant shared with the clean build up to its step, and the table committed
beside the cache, printed again by the run and by the documented trace command from propagation.json alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.records.propagation import PLANT_KINDS, PropagationStudy
from harness.reflection.insights.trace import RESULT_FILE
from tests.in_process import run_in_process, run_module
from tests.runner import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "propagation"
SEEDS, TRAINING, CRITIQUES = (0, 1, 2), 12, 14


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("propagation")
    no_models = root / "no-models"
    no_models.mkdir()
    result = run_in_process(
        "experiment=propagation", "scenario.cache.mode=replay",
        f"scenario.cache.path={FIXTURE / 'llm_cache.jsonl'}", f"hydra.run.dir={root / 'run'}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert list(no_models.iterdir()) == [], "the replay assembled or loaded a model"
    return root / "run", result.stdout


def test_every_build_of_the_design_is_replayed(replayed: tuple[Path, str]) -> None:
    study = PropagationStudy.model_validate_json((replayed[0] / RESULT_FILE).read_text())
    assert study.model == "qwen2.5-coder-1.5b"
    assert sorted((b.seed, b.gate, b.plant.kind) for b in study.builds) == sorted(
        (seed, gate, kind) for seed in SEEDS for gate in (False, True) for kind in PLANT_KINDS)
    for build in study.builds:
        assert len(build.training) == TRAINING and len(build.ledger.steps) == CRITIQUES
        assert build.plant.task_id == build.training[-1] and build.plant.step == TRAINING - 1
        if build.plant.kind == "off_task":
            assert build.plant.donor not in build.training and build.plant.markers


def test_a_planted_build_shares_every_critique_before_its_plant(replayed: tuple[Path, str]) -> None:
    study = PropagationStudy.model_validate_json((replayed[0] / RESULT_FILE).read_text())
    clean = {(b.seed, b.gate): b for b in study.builds if b.plant.kind == "none"}
    for build in study.builds:
        twin = clean[build.seed, build.gate]
        before = build.plant.step
        assert [s.raw_answer for s in build.ledger.steps[:before]] == [s.raw_answer for s in twin.ledger.steps[:before]]


def test_the_committed_table_is_what_the_run_and_the_trace_command_print(replayed: tuple[Path, str]) -> None:
    run_dir, stdout = replayed
    committed = (FIXTURE / "table.md").read_text()
    assert stdout == committed
    assert run_module("harness.cli.trace", str(run_dir)).stdout == committed
