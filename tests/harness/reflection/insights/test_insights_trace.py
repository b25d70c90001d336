"""The trace finds a planted off-task reflection's marker wherever a critic puts it: a scripted OpenAI-compatible
critic copies the marker into an ADD, into an EDIT, or nowhere, and the study is built end to end over HTTP."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from harness.audit.published_experience import (
    READS, SOURCE, evaluation_games, published_reflections, published_study_tasks,
)
from harness.domains.alfworld.target import target_object
from harness.llm import CacheConfig, ModelConfig
from harness.records.propagation import PropagationStudy
from harness.reflection.insights.trace import study_traces, trace
from harness.run.config import PropagationConfig
from harness.run.scenarios.propagation import run_propagation
from tests.scripted_critic import ScriptedCritic, Where

def _scenario(tmp_path: Path, gates: list[bool]) -> PropagationConfig:
    return PropagationConfig(
        seeds=[0], training_tasks=4, plants=["none", "off_task"], gates=gates, vacuous="Be careful.",
        cache=CacheConfig(mode="auto", path=str(tmp_path / "cache.jsonl")),
    )


def _study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: Where, gates: list[bool]) -> tuple[
        PropagationStudy, ScriptedCritic]:
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    scenario = _scenario(tmp_path, gates)
    with ScriptedCritic(where, 0, scenario.training_tasks) as server:
        model = ModelConfig(name="scripted", backend="openai", model="scripted", api="chat",
                            base_url=server.base_url, api_key_env="OPENAI_API_KEY")
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        study = run_propagation(scenario, model, published_study_tasks(), evaluation_games(), published_reflections(),
                                READS, SOURCE, run_dir)
    return study, server


@pytest.mark.parametrize("where", ["add", "edit"])
def test_the_trace_finds_the_marker_where_the_critic_wrote_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              where: str) -> None:
    study, server = _study(tmp_path, monkeypatch, where, [False])
    clean, planted = study.builds
    found = trace(planted)
    assert found.entry == found.proposed == planted.plant.step
    assert found.survives and found.reach == len(planted.evaluation) == found.amplification
    (carrier,) = found.carriers
    assert sum(carrier.identity.values()) == found.reach
    assert found.carriers_by_step[planted.plant.step] == 1
    assert not trace(clean).survives and clean.plant.markers == []
    # The planted build asked only from its plant on: the cache answered every critique before it.
    assert server.requests == len(clean.ledger.steps) + len(planted.ledger.steps) - planted.plant.step


def test_no_marker_is_found_where_the_critic_wrote_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    study, _ = _study(tmp_path, monkeypatch, "nowhere", [False])
    found = trace(study.builds[1])
    assert (found.entry, found.proposed, found.survives, found.reach) == (None, None, False, 0)
    traces = study_traces(study)
    # The null is every donor's markers in the clean build: the off-task plant's own donor among them.
    assert [t.plant for t in traces[:2]] == ["none", "off_task"] and {t.plant for t in traces[2:]} == {"none*"}
    assert study.builds[1].plant.markers in [t.markers for t in traces[2:]] and all(t.markers for t in traces[2:])


def test_the_gate_refuses_the_marker_the_trajectories_never_name(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    study, _ = _study(tmp_path, monkeypatch, "add", [True])
    gated = trace(study.builds[1])
    assert gated.proposed == study.builds[1].plant.step and gated.entry is None and not gated.survives
    assert gated.refused == 1 and trace(study.builds[0]).refused == 0


def test_a_copied_misplacement_is_traced_by_the_location_check_and_refused_by_the_gate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 50 items 2 and 4: the misplaced plant names no foreign word; a critic copying it writes a location the
    # planted task's own play contradicts, and the gate refuses it with that play's observation.
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    chosen = random.Random(0).sample(published_study_tasks(), 4)
    scenario = _scenario(tmp_path, [False, True]).model_copy(update={"plants": ["none", "misplaced"]})
    with ScriptedCritic("copy", 0, 4, kind="misplaced", target=target_object(chosen[-1].game_id).lower()) as server:
        model = ModelConfig(name="scripted", backend="openai", model="scripted", api="chat",
                            base_url=server.base_url, api_key_env="OPENAI_API_KEY")
        (tmp_path / "run").mkdir()
        study = run_propagation(scenario, model, published_study_tasks(), evaluation_games(), published_reflections(),
                                READS, SOURCE, tmp_path / "run")
    free, gated = (next(b for b in study.builds if b.plant.kind == "misplaced" and b.gate == gate)
                   for gate in (False, True))
    assert free.plant.markers and all(" in " in marker for marker in free.plant.markers)
    found = trace(free, study=study)
    assert found.entry == free.plant.step and found.survives and found.copied and found.contradicted
    stopped = trace(gated, study=study)
    assert stopped.entry is None and not stopped.survives and stopped.refused == 1
    assert gated.refusals[0].contradicted and gated.refusals[0].unquoted == []
