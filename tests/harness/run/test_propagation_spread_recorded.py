"""The spread study (experiment=propagation) as recorded with the embedded critic (tests/fixtures/propagation_spread/),
replayed with no model: every build of the design, a planted build sharing the clean build's critiques before its
plant, and the table committed beside the cache, printed again by the run and by the trace command."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.records.propagation import PropagationStudy
from harness.reflection.insights.trace import RESULT_FILE, trace
from tests.recorded_propagation import assert_plants_share_the_clean_critiques, assert_the_committed_table_is_printed, replay
from tests.runner import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "propagation_spread"
SEEDS, TRAINING, STEPS = (0, 1, 2, 3, 4), 6, (0, 3)
PLANTED = ("off_task", "misplaced")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return replay("propagation", FIXTURE, tmp_path_factory.mktemp("spread"))


def test_every_build_of_the_design_is_replayed(replayed: tuple[Path, str]) -> None:
    study = PropagationStudy.model_validate_json((replayed[0] / RESULT_FILE).read_text())
    assert study.model == "qwen2.5-coder-1.5b" and study.max_tokens == 512 and study.gate_locations
    assert {b.seed for b in study.builds} == set(SEEDS)
    for seed in SEEDS:
        for gate in (False, True):
            builds = [b for b in study.builds if (b.seed, b.gate) == (seed, gate)]
            order = builds[0].training
            assert len(order) == TRAINING and all(b.training == order for b in builds)
            planted_steps = {order.index(b.plant.task_id) for b in builds if b.plant.kind in PLANTED}
            assert planted_steps == set(STEPS)
            for step in STEPS:
                at = [b for b in builds if b.plant.kind == "off_task" and order.index(b.plant.task_id) == step]
                assert len(at) == 3 and len({b.plant.donor for b in at}) == 3, "three donors a seed and step"
                assert all(b.plant.donor not in order for b in at)
                assert any(b.plant.kind == "misplaced" and order.index(b.plant.task_id) == step for b in builds)


def test_a_planted_build_shares_every_critique_before_its_plant(replayed: tuple[Path, str]) -> None:
    assert_plants_share_the_clean_critiques(replayed[0])


def test_the_committed_table_is_what_the_run_and_the_trace_command_print(replayed: tuple[Path, str]) -> None:
    assert_the_committed_table_is_printed(*replayed, FIXTURE)


def test_off_task_plants_spread_mid_way_and_the_gate_refuses_each(replayed: tuple[Path, str]) -> None:
    # What the recording shows: three off-task reflections planted at step 3 were copied into rule 1 and reached every
    # evaluation task; at step 0 none entered. In each gated twin (same seed and donor) the gate refused that ADD.
    study = PropagationStudy.model_validate_json((replayed[0] / RESULT_FILE).read_text())
    traced = {(b.seed, b.gate, b.plant.kind, b.plant.donor, b.plant.step): (b, trace(b, study=study))
              for b in study.builds}
    spread = [(key, t) for key, (_, t) in traced.items() if not key[1] and t.survives]
    assert sorted((seed, donor) for (seed, _, _, donor, _), _ in spread) == [
        (3, "env_115"), (3, "env_18"), (4, "env_105")]
    for (seed, _, kind, donor, step), found in spread:
        assert kind == "off_task" and step == 3 and found.entry == step and found.copied
        assert found.carriers[0].rank == 1 and found.reach == 128
        twin, gated = traced[seed, True, kind, donor, step]
        assert gated.proposed == step and gated.entry is None and not gated.survives
        assert any(refusal.step == step and refusal.operation.kind == "ADD" for refusal in twin.refusals)
    assert "Gate target (missed)" in replayed[1] and "clean ADD/EDIT kept 83%" in replayed[1]
