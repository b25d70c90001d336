"""The propagation study as recorded once with the embedded critic (tests/fixtures/propagation/), replayed with no
model: every build of the design, the plant shared with the clean build up to its step, and the table committed
beside the cache, printed again by the run and by the documented trace command from propagation.json alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.records.propagation import PropagationStudy
from harness.reflection.insights.library_trace import build_experience, library_findings
from harness.reflection.insights.rule_gate import contradicted, evidence_plays
from harness.reflection.insights.trace import RESULT_FILE
from tests.in_process import run_in_process, run_module
from tests.recorded_propagation import assert_plants_share_the_clean_critiques, assert_the_committed_table_is_printed, replay
from tests.runner import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "propagation"
SEEDS, TRAINING, CRITIQUES = (0, 1, 2), 12, 14
PLANTS = ("none", "correct", "vacuous", "off_task")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return replay("propagation_first", FIXTURE, tmp_path_factory.mktemp("propagation"))


def test_every_build_of_the_design_is_replayed(replayed: tuple[Path, str]) -> None:
    study = PropagationStudy.model_validate_json((replayed[0] / RESULT_FILE).read_text())
    assert study.model == "qwen2.5-coder-1.5b"
    assert sorted((b.seed, b.gate, b.plant.kind) for b in study.builds) == sorted(
        (seed, gate, kind) for seed in SEEDS for gate in (False, True) for kind in PLANTS)
    for build in study.builds:
        assert len(build.training) == TRAINING and len(build.ledger.steps) == CRITIQUES
        assert build.plant.task_id == build.training[-1] and build.plant.step == TRAINING - 1
        if build.plant.kind == "off_task":
            assert build.plant.donor not in build.training and build.plant.markers


def test_a_planted_build_shares_every_critique_before_its_plant(replayed: tuple[Path, str]) -> None:
    assert_plants_share_the_clean_critiques(replayed[0])


def test_the_committed_table_is_what_the_run_and_the_trace_command_print(replayed: tuple[Path, str]) -> None:
    assert_the_committed_table_is_printed(*replayed, FIXTURE)


def test_the_soapbar_rule_is_copied_and_contradicted_in_every_seed(replayed: tuple[Path, str]) -> None:
    # Issue 50: rule 1 of every library is env_115's published reflection, copied, and it puts soapbar 1 in cabinet
    # 1, where the game's expert play shows cabinet 1 holding cloth 1 and soapbar 1 on countertop 1.
    study = PropagationStudy.model_validate_json((replayed[0] / RESULT_FILE).read_text())
    findings = library_findings(study)
    first = [f.rules[0] for f in findings]
    assert all(r.copied is not None and r.copied.source.task_id == "env_115" for r in first)
    assert all(r.copied.source.kind == "reflection" and r.copied.shared_words >= 100 for r in first if r.copied)
    assert all([(c.object, c.receptacle) for c in r.contradicted] == [("soapbar 1", "cabinet 1")] for r in first)
    assert all("On the countertop 1, you see a soapbar 1" in (r.contradicted[0].evidence or "") for r in first)
    assert {f.seed for f in findings} == set(SEEDS) and all(r.reach == 122 for r in first)
    assert "a rule both copied and contradicted in 3 of 3 seeds" in replayed[1]
    # The gate's location check (off in the first design, so that it replays) refuses that copy with the evidence.
    build = study.builds[0]
    added = build.ledger.rules[0].changes[0]
    plays = evidence_plays(added.critique, build_experience(study, build))
    assert contradicted(added.applied.text, plays)[0].startswith("soapbar 1 from cabinet 1 -- You arrive at loc 12.")
    assert "Gate target: not evaluable: without the gate no build wrote a rule carrying its plant" in replayed[1]


def test_the_same_command_on_its_finished_directory_runs_again(replayed: tuple[Path, str]) -> None:
    # Issue 47 item 19: refused as "not this harness's" (a propagation run writes no manifest).
    again = run_in_process(
        "experiment=propagation_first", "scenario.cache.mode=replay",
        f"scenario.cache.path={FIXTURE / 'llm_cache.jsonl'}", f"hydra.run.dir={replayed[0]}",
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout == replayed[1]


def test_the_trace_command_on_a_malformed_record_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / RESULT_FILE).write_text('{"model": "m", "builds": [{"seed": "x"}]}')
    result = run_module("harness.cli.trace", str(tmp_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert f"{tmp_path / RESULT_FILE} is not a propagation record of this harness" in result.stderr
