"""Behavioural reach as recorded with the embedded actor (tests/fixtures/propagation_reach/): the spread study's seed-2
clean build's rule 1 (env_115's soapbar reflection, copied) played with and without it on ten evaluation games,
replayed with no model, and the table committed beside the cache printed again by the run and the trace command."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.records.propagation import REACH_FILE, ReachStudy
from tests.in_process import run_in_process, run_module
from tests.recorded_propagation import replay
from tests.runner import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "propagation_reach"
SPREAD = ROOT / "tests" / "fixtures" / "propagation_spread"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("reach")
    study, _ = replay("propagation", SPREAD, root)
    result = run_in_process(
        "experiment=propagation_reach", f"scenario.study={study}", "scenario.seed=2", "scenario.gate=false",
        "scenario.plant=none", "scenario.rank=1", "scenario.cache.mode=replay",
        f"scenario.cache.path={FIXTURE / 'llm_cache.jsonl'}", f"hydra.run.dir={root / 'reach'}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(root / "no-models")},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert list((root / "no-models").iterdir()) == [], "the replay assembled or loaded a model"
    return study, root / "reach", result.stdout


def test_the_committed_table_is_what_the_run_and_the_trace_command_print(replayed: tuple[Path, Path, str]) -> None:
    study, run_dir, stdout = replayed
    committed = (FIXTURE / "table.md").read_text().replace("STUDY", str(study))
    assert stdout == committed
    assert run_module("harness.cli.trace", str(run_dir)).stdout == committed


def test_each_game_is_played_in_both_arms(replayed: tuple[Path, Path, str]) -> None:
    reach = ReachStudy.model_validate_json((replayed[1] / REACH_FILE).read_text())
    assert (reach.seed, reach.gate, reach.plant, reach.rank) == (2, False, "none", 1)
    assert "soapbar 1 in cabinet 1" in reach.claims
    games = {arm: [e.game_id for e in reach.episodes if e.arm == arm] for arm in ("with", "without")}
    assert games["with"] == games["without"] and len(set(games["with"])) == 10
