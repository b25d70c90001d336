"""A recorded propagation study replayed with no model, and the checks every such recording shares."""

from __future__ import annotations

from pathlib import Path

from harness.records.propagation import PropagationStudy
from harness.reflection.insights.trace import RESULT_FILE
from tests.in_process import run_in_process, run_module


def replay(experiment: str, fixture: Path, root: Path) -> tuple[Path, str]:
    """`experiment` replayed from `fixture`'s cache into ROOT/run with no model file reachable: its directory and
    what it printed."""
    no_models = root / "no-models"
    no_models.mkdir()
    result = run_in_process(
        f"experiment={experiment}", "scenario.cache.mode=replay", f"scenario.cache.path={fixture / 'llm_cache.jsonl'}",
        f"hydra.run.dir={root / 'run'}", env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert list(no_models.iterdir()) == [], "the replay assembled or loaded a model"
    return root / "run", result.stdout


def study_of(run_dir: Path) -> PropagationStudy:
    return PropagationStudy.model_validate_json((run_dir / RESULT_FILE).read_text())


def assert_plants_share_the_clean_critiques(run_dir: Path) -> None:
    """Every planted build asked the clean build's critiques (same seed and gate) before its plant's step."""
    study = study_of(run_dir)
    clean = {(b.seed, b.gate): b for b in study.builds if b.plant.kind == "none"}
    for build in study.builds:
        twin = clean[build.seed, build.gate]
        before = build.plant.step
        assert [s.raw_answer for s in build.ledger.steps[:before]] == [s.raw_answer for s in twin.ledger.steps[:before]]


def assert_the_committed_table_is_printed(run_dir: Path, stdout: str, fixture: Path) -> None:
    """The run printed the fixture's table.md, and the trace command prints it again from the record alone."""
    committed = (fixture / "table.md").read_text()
    assert stdout == committed
    assert run_module("harness.cli.trace", str(run_dir)).stdout == committed
