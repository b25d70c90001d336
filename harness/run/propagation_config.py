"""The plant-and-trace study's settings (`scenario` of configs/experiment/propagation.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from harness.llm import CacheConfig


class PropagationConfig(BaseModel):
    """The plant-and-trace study (configs/experiment/propagation.yaml): rule libraries built from the published
    ALFWorld log with one planted reflection, traced (harness/run/scenarios/propagation.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["propagation"] = "propagation"
    seeds: list[StrictInt] = Field(min_length=1, description="Each seed draws and orders the training tasks.")
    training_tasks: StrictInt = Field(12, ge=2, description="Training tasks per build, each with one success.")
    plant_task: StrictInt = Field(
        -1, description="The planted task's place in the seed's order (its compare critique's step); -1: the last."
    )
    plants: list[Literal["none", "correct", "vacuous", "off_task"]] = Field(min_length=1)
    gates: list[bool] = Field(min_length=1, description="Build with the rule-write gate off (false), on (true).")
    vacuous: str = Field(description="The vacuous plant: a reflection with no task content.")
    max_tokens: StrictInt = Field(256, ge=1, description="The critic's answer limit.")
    cache: CacheConfig = Field(description="The study's answers: the committed ones are replayed by default.")
