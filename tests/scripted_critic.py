"""A scripted ExpeL critic over real HTTP for the plant-and-trace tests: it ADDs one generic rule, then, in the
critique that shows the off-task plant after its task, writes a rule naming the plant's marker into an ADD, an EDIT
of rule 1, or nowhere; every other critique AGREEs with rule 1."""

from __future__ import annotations

import random
from typing import Any, Literal

from benchmarks.recorded_server import RecordedHandler, RecordedServer
from harness.audit.published_experience import published_reflections, published_study_tasks
from harness.records.propagation import PlantKind
from harness.run.scenarios.plants import plant_texts

GENERIC = "Always check every receptacle before concluding an object is missing."
Where = Literal["add", "edit", "nowhere", "copy"]


class _Handler(RecordedHandler):
    owner: ScriptedCritic  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        self.owner.requests += 1
        text = self.owner.answer(payload["messages"][-1]["content"])
        self.send_answer(payload, {"text": text, "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


class ScriptedCritic(RecordedServer):
    """The critic scripted for the study's build at `seed` over `training` tasks (its planted task is the last);
    `rule` is the planted ADD's text around the marker ("{marker}"); `copy` ADDs the planted reflection itself, as
    the embedded critic did. `kind`: the plant it reacts to (off_task, or misplaced on the task's target `target`)."""

    handler = _Handler

    def __init__(self, where: Where, seed: int, training: int, rule: str = "Look for the {marker} first.",
                 kind: PlantKind = "off_task", target: str = "") -> None:
        super().__init__(None, 0)
        order = [t.experience for t in random.Random(seed).sample(published_study_tasks(), training)]
        self.task = order[-1].task
        planted, *_ = plant_texts(kind, order[-1], target, order, "", published_reflections(), seed, training - 1, 1)
        assert planted.text is not None
        self.plant = planted.text
        self.marker = planted.markers[0]
        self.where, self.rule = where, rule.format(marker=self.marker)
        self.requests = 0

    def answer(self, prompt: str) -> str:
        if "1. " + GENERIC not in prompt:
            return f"ADD 1: {GENERIC}"
        planted = f"TRIAL TASK:\n{self.task}" in prompt and self.plant in prompt
        if planted and self.where == "add":
            return f"ADD 2: {self.rule}"
        if planted and self.where == "edit":
            return f"EDIT 1: Check every receptacle, and the {self.marker} too."
        if planted and self.where == "copy":
            return "ADD 2: " + " ".join(self.plant.split())
        return f"AGREE 1: {GENERIC}"
