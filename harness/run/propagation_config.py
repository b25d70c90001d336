"""The plant-and-trace study's settings (`scenario` of configs/experiment/propagation*.yaml)."""

from __future__ import annotations

from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationInfo, field_validator

from harness.llm import CacheConfig

_T = TypeVar("_T")

STUDY_MAX_TOKENS = 512
"""The critic's answer limit by default: the insight stage's `insights.critic_max_tokens`."""


def _once(values: list[_T]) -> list[_T]:
    """A list's values in order, each once: a repeated seed, gate or plant is one design cell, built once."""
    return list(dict.fromkeys(values))


class PropagationConfig(BaseModel):
    """The plant-and-trace study: rule libraries built from the published ALFWorld log with one planted reflection,
    traced (harness/run/scenarios/propagation.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["propagation"] = "propagation"
    seeds: list[StrictInt] = Field(min_length=1, description="Each seed draws and orders the training tasks.")
    training_tasks: StrictInt = Field(12, ge=2, description="Training tasks per build, each with one success.")
    plant_steps: list[StrictInt] = Field(
        [-1], min_length=1,
        description="Where the plant goes: the planted task's places in the seed's order, each its compare critique's "
                    "step (0: the first, on an empty library; -1: the last).",
    )
    plants: list[Literal["none", "correct", "vacuous", "off_task", "misplaced"]] = Field(min_length=1)
    donors: StrictInt = Field(
        1, ge=1, description="Plants of each kind per seed and step that vary: off_task's donor reflections, "
                             "misplaced's draws of the wrong receptacles.",
    )
    gates: list[bool] = Field(min_length=1, description="Build with the rule-write gate off (false), on (true).")
    gate_locations: bool = Field(
        True, description="The gate also refuses a rule whose location claim its critique's trajectories contradict "
                          "(false: entity words only, the gate as first recorded).",
    )
    vacuous: str = Field(description="The vacuous plant: a reflection with no task content.")
    max_tokens: StrictInt = Field(STUDY_MAX_TOKENS, ge=1, description="The critic's answer limit (tokens).")
    cache: CacheConfig = Field(description="The study's answers: the committed ones are replayed by default.")

    @field_validator("seeds", "plant_steps", "plants", "gates")
    @classmethod
    def _each_once(cls, values: list[_T]) -> list[_T]:
        return _once(values)

    @field_validator("plant_steps")
    @classmethod
    def _steps_in_the_order(cls, steps: list[int], info: ValidationInfo) -> list[int]:
        tasks = info.data.get("training_tasks")
        if tasks is None:  # training_tasks itself was refused: its error is the one to say
            return steps
        outside = [step for step in steps if not -tasks <= step < tasks]
        if outside:
            raise ValueError(
                f"{outside[0]} is outside the order of {tasks} training tasks; accepted: 0 to {tasks - 1}, or -1 to "
                f"-{tasks} counted from the last"
            )
        return steps

    def step_of(self, place: int) -> int:
        """A plant step as a place from the first (-1: the last)."""
        return place % self.training_tasks


class EntryConfig(BaseModel):
    """The entry study: every published ALFWorld reflection shown to an empty library in one compare critique
    (harness/run/scenarios/entry.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["propagation_entry"] = "propagation_entry"
    seed: StrictInt = Field(0, description="The requests' seed (the critic answers greedily).")
    envs: list[str] | None = Field(
        None, min_length=1, description="The published environments to show, in the log's order (None: every one "
                                        "that wrote a reflection).",
    )
    max_tokens: StrictInt = Field(STUDY_MAX_TOKENS, ge=1, description="The critic's answer limit (tokens).")
    cache: CacheConfig = Field(description="The study's answers: the committed ones are replayed by default.")


class ReachConfig(BaseModel):
    """Behavioural reach: a carried rule's evaluation games played with and without it
    (harness/run/scenarios/reach.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["propagation_reach"] = "propagation_reach"
    study: str = Field(description="A finished experiment=propagation run directory (its propagation.json).")
    seed: StrictInt = Field(0, description="The build's seed, and the draw of the games.")
    gate: bool = Field(False, description="The build's gate.")
    plant: str = Field("none", description="The build's plant kind (its first variant at its first step).")
    rank: StrictInt = Field(1, ge=1, description="The traced rule's place in the build's final list.")
    games: StrictInt = Field(10, ge=1, description="Evaluation games drawn (each played twice: with and without).")
    max_steps: StrictInt = Field(30, ge=1, description="Actions per episode.")
    cache: CacheConfig = Field(description="The actor's answers: the committed ones are replayed by default.")
