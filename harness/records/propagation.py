"""The plant-and-trace study's records: the experience it reads (with what each trial's text really is), each built
rule library with its plant and its gate's refusals, and what the trace finds in it.

Models only: the builds are made by `harness/run/scenarios/propagation.py`, traced by
`harness/reflection/insights/trace.py`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.records.insights import ExperienceTask, InsightsLedger, Operation

RESULT_FILE = "propagation.json"
"""A plant-and-trace run's one record (it writes no trials.jsonl and no manifest)."""

PlantKind = Literal["none", "correct", "vacuous", "off_task", "misplaced"]
"""none: the planted trial shows no reflection; correct: the task's own published reflection (the task succeeded on
the next trial); vacuous: a reflection with no task content; off_task: another published task's reflection
(cross-paired), naming an entity the training text does not; misplaced: the task's own reflection with its objects
moved to receptacles its game contradicts (no foreign word: traced by the location check)."""
PLANT_KINDS: tuple[PlantKind, ...] = ("none", "correct", "vacuous", "off_task", "misplaced")

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
    contradicted: list[str] = Field(
        default_factory=list,
        description="The rule's location claims the critique's trajectories contradict, each with the observation "
                    "that does ('soapbar 1 from cabinet 1' -- On the countertop 1, you see a soapbar 1 ...).",
    )


class Plant(BaseModel):
    """One planted reflection: where it went, what it says, and the words that mark it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: PlantKind
    task_id: str = Field(description="The training task whose failed trial carries the plant.")
    step: int = Field(ge=0, description="The position of that task's compare critique in the build's order.")
    text: str | None = Field(description="The reflection the critic reads there; None for `none`.")
    donor: str | None = Field(None, description="off_task: the published task (outside the training order) whose "
                                                "reflection was planted.")
    variant: int = Field(0, ge=0, description="Which of the seed's plants of this kind at this step (off_task: its "
                                              "donor; misplaced: its draw of wrong receptacles).")
    markers: list[str] = Field(
        description="What marks the plant in a rule. Entity words (off_task and the rest): the plant's ALFWorld types "
                    "absent from the planted task's own text, every training task's sentence and every other "
                    "reflection. misplaced: its moved location claims ('soapbar 1 in cabinet 3')."
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
    cut: list[int] = Field(default_factory=list, description="Critique steps whose answer ended on the length limit.")


class PropagationStudy(BaseModel):
    """propagation.json: the design, what the critic reads, and every build."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    source: str = Field(description="The published run the experience comes from.")
    reads: str = Field(description="What the critic reads, in one paragraph.")
    tasks: list[StudyTask] = Field(description="The pool of training tasks the seeds draw from.")
    max_tokens: int | None = Field(None, description="The critic's answer limit (tokens).")
    gate_locations: bool = Field(False, description="The gate also refused contradicted location claims.")
    donors: dict[str, str] = Field(
        default_factory=dict, description="Every published task that may give an off_task plant -> its reflection: "
                                          "the null traces each one's markers in every clean library."
    )
    builds: list[PropagationBuild]


ENTRY_FILE = "entry.json"
"""An entry study's one record."""


class EntryItem(BaseModel):
    """One published reflection shown to an empty library in one compare critique: the answer and what it did."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: StudyTask = Field(description="Its environment: the failed trial and reflection, the expert planner's play.")
    ledger: InsightsLedger = Field(description="The one critique step on the empty library.")
    refusals: list[GateRefusal] = Field(
        default_factory=list, description="What the rule-write gate would have refused of the same answer (the "
                                          "request on an empty library does not depend on the gate).")
    cut: bool = Field(description="The answer ended on the length limit.")


class EntryStudy(BaseModel):
    """entry.json: every published ALFWorld reflection, each shown alone to an empty library."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    source: str
    reads: str
    max_tokens: int
    items: list[EntryItem]


REACH_FILE = "reach.json"
"""A behavioural-reach study's one record."""
Arm = Literal["with", "without"]
"""A reach episode's rule list: the build's final one, or the same less the traced rule."""


class ReachEpisode(BaseModel):
    """One evaluation game played with the rule list (`with`) or with the same list less the traced rule."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: str
    arm: Arm
    actions: list[str]
    success: bool
    acted: list[str] = Field(description="The actions that act on the rule's claims (go to or open the claimed "
                                         "receptacle, take the claimed object from it).")


class ReachStudy(BaseModel):
    """reach.json: one carried rule, evaluation games played with and without it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    study: str = Field(description="The propagation run the rule was read from.")
    seed: int
    gate: bool
    plant: str
    rank: int = Field(ge=1, description="The rule's place in that build's final list.")
    rule: str
    claims: list[str] = Field(description="The rule's location claims ('soapbar 1 in cabinet 1').")
    episodes: list[ReachEpisode]
