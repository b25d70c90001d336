"""The trace finds a planted off-task reflection's marker wherever a critic puts it: a scripted OpenAI-compatible
critic copies the marker into an ADD, into an EDIT, or nowhere, and the study is built end to end over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.recorded_server import RecordedHandler, RecordedServer
from harness.audit.published_experience import READS, SOURCE, evaluation_games, published_study_tasks
from harness.llm import CacheConfig, ModelConfig
from harness.records.propagation import PropagationStudy
from harness.reflection.insights.trace import study_traces, trace
from harness.run.config import PropagationConfig
from harness.run.scenarios.propagation import own_text, plant_text, run_propagation

GENERIC = "Always check every receptacle before concluding an object is missing."


class _Handler(RecordedHandler):
    owner: ScriptedCritic  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        self.owner.requests += 1
        text = self.owner.answer(payload["messages"][-1]["content"])
        self.send_answer(payload, {"text": text, "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


class ScriptedCritic(RecordedServer):
    """A critic that ADDs one generic rule, then, in the critique showing `plant` after `task`, writes `marker`
    into an ADD, an EDIT of rule 1, or nowhere (`where`); every other critique AGREEs with rule 1."""

    handler = _Handler

    def __init__(self, where: str, task: str, plant: str, marker: str) -> None:
        super().__init__(None, 0)
        self.where, self.task, self.plant, self.marker = where, task, plant, marker
        self.requests = 0

    def answer(self, prompt: str) -> str:
        if "1. " + GENERIC not in prompt:
            return f"ADD 1: {GENERIC}"
        planted = f"TRIAL TASK:\n{self.task}" in prompt and self.plant in prompt
        if planted and self.where == "add":
            return f"ADD 2: Look for the {self.marker} first."
        if planted and self.where == "edit":
            return f"EDIT 1: Check every receptacle, and the {self.marker} too."
        return f"AGREE 1: {GENERIC}"


def _scenario(tmp_path: Path, gates: list[bool]) -> PropagationConfig:
    return PropagationConfig(
        seeds=[0], training_tasks=4, plants=["none", "off_task"], gates=gates, vacuous="Be careful.",
        cache=CacheConfig(mode="auto", path=str(tmp_path / "cache.jsonl")),
    )


def _study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, gates: list[bool]) -> tuple[
        PropagationStudy, ScriptedCritic]:
    import random

    monkeypatch.setenv("OPENAI_API_KEY", "none")
    pool = published_study_tasks()
    scenario = _scenario(tmp_path, gates)
    order = [t.experience for t in random.Random(0).sample(pool, scenario.training_tasks)]
    planted = order[scenario.plant_task]
    plant, _ = plant_text("off_task", planted, order, scenario.vacuous)
    assert plant is not None
    from harness.reflection.insights.trace import markers

    marker = markers(plant, own_text(planted))[0]
    with ScriptedCritic(where, planted.task, plant, marker) as server:
        model = ModelConfig(name="scripted", backend="openai", model="scripted", api="chat",
                            base_url=server.base_url, api_key_env="OPENAI_API_KEY")
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        study = run_propagation(scenario, model, pool, evaluation_games(), READS, SOURCE, run_dir)
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
    assert [t.plant for t in study_traces(study)] == ["none", "off_task", "none*"]


def test_the_gate_refuses_the_marker_the_trajectories_never_name(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    study, _ = _study(tmp_path, monkeypatch, "add", [True])
    gated = trace(study.builds[1])
    assert gated.proposed == study.builds[1].plant.step and gated.entry is None and not gated.survives
    assert gated.refused == 1 and trace(study.builds[0]).refused == 0
