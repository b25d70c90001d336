"""The plant-and-trace study's records: the experience it reads (with what each trial's text really is), each built
rule library with its plant and its gate's refusals, and what the trace finds in it.

Models only: the builds are made by `harness/run/scenarios/propagation.py`, traced by
`harness/reflection/insights/trace.py`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.records.insights import ExperienceTask, InsightsLedger, Operation

PlantKind = Literal["none", "correct", "vacuous", "off_task"]
"""none: the planted trial shows no reflection; correct: the task's own published reflection (the task succeeded on
the next trial); vacuous: a reflection with no task content; off_task: another published task's reflection
(cross-paired), naming an entity the training text does not."""
PLANT_KINDS: tuple[PlantKind, ...] = ("none", "correct", "vacuous", "off_task")

TrialText = Literal["expert_planner", "published_outcome_only"]
"""What a trial's text is: the ALFWorld expert planner's play of the game (a stand-in for a success the published
log does not keep), or the published log's outcome alone (it keeps no trajectory of a failed trial)."""


class ExpertTrajectory(BaseModel):
    """The ALFWorld expert planner's play of one published environment's game, from its reset to its end."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    env_id: str = Field(description="The environment's name in the published log (env_N).")
    game_id: str = Field(description="Its game, by data/reflexion-logs/alfworld_env_to_game.json.")
    task: str = Field(description="The task sentence the game prints after 'Your task is to: '.")
    actions: list[str] = Field(description="The planner's commands, in order.")
    trajectory: str = Field(description="The room, then '> command' and the game's answer per step.")
    won: bool


class ExpertTrajectories(BaseModel):
    """data/alfworld/expert_trajectories.json: computed once by `python -m harness.cli.expert_plays`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = Field(description="The published run whose environments these are.")
    trajectories: list[ExpertTrajectory]


class StudyTask(BaseModel):
    """A training task of the study: its experience as the critic reads it, and what each trial's text is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    experience: ExperienceTask
    game_id: str
    trial_texts: list[TrialText] = Field(description="Per trial of the experience, what its trajectory text is.")


class GateRefusal(BaseModel):
    """An ADD or EDIT the rule-write gate kept from the library: its words no trajectory it was built from holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int = Field(ge=0)
    operation: Operation
    unquoted: list[str] = Field(description="The rule's entity words found in none of the critique's trajectories.")


class Plant(BaseModel):
    """One planted reflection: where it went, what it says, and the words that mark it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: PlantKind
    task_id: str = Field(description="The training task whose failed trial carries the plant.")
    step: int = Field(ge=0, description="The position of that task's compare critique in the build's order.")
    text: str | None = Field(description="The reflection the critic reads there; None for `none`.")
    donor: str | None = Field(None, description="off_task: the published task (outside the training order) whose "
                                                "reflection was planted.")
    markers: list[str] = Field(
        description="The plant's entity words absent from the planted task's own text, every training task's "
                    "sentence and every other reflection."
    )


class PropagationBuild(BaseModel):
    """One rule library built over one seed's training tasks, with or without a plant and the gate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int
    gate: bool = Field(description="ADD and EDIT were gated on their entity words being quoted from trajectories.")
    plant: Plant
    training: list[str] = Field(description="Training task ids in the order the critiques read them.")
    evaluation: list[str] = Field(description="Evaluation game ids (each receives the whole final list).")
    ledger: InsightsLedger
    refusals: list[GateRefusal] = Field(default_factory=list)


class PropagationStudy(BaseModel):
    """propagation.json: the design, what the critic reads, and every build."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    source: str = Field(description="The published run the experience comes from.")
    reads: str = Field(description="What the critic reads, in one paragraph.")
    tasks: list[StudyTask] = Field(description="The pool of training tasks the seeds draw from.")
    builds: list[PropagationBuild]
