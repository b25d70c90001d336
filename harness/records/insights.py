"""ExpeL's insight stage as records: the experience it reads, the critiques it asks for, the rules it keeps, and how
every rule came to be (which critique, which trials and reflections it read, the critic's raw answer, each count
change), so a sentence in a prompt can be traced back to the reflection it came from.

Models only: the parser, the counting and the prompts live in `harness/reflection/insights/`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

CritiqueKind = Literal["compare", "all_success"]
OperationKind = Literal["ADD", "EDIT", "AGREE", "REMOVE"]


class ExperienceTrial(BaseModel):
    """One trial of a training task, as the insight stage reads it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trajectory: str = Field(
        description="The trial after its task prompt (ExpeL's log_history(include_task=False)): the steps only, "
        "without the task and without the reflections the actor had in its prompt."
    )
    success: bool
    reflection: str | None = Field(
        None,
        description="The reflection written after this trial, if any; the critic reads it only with "
        "insights.read_reflections.",
    )


class ExperienceTask(BaseModel):
    """A training task and its trials in the order they were played (at most 4 in ExpeL)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="The task's id in the run (a game, a question id).")
    task: str = Field(description="The task text the critic reads (ExpeL's remove_task_suffix of the task).")
    trials: list[ExperienceTrial] = Field(min_length=1)


class TrialRef(BaseModel):
    """A trial named by its task and its position among that task's trials (0-based)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    trial: int = Field(ge=0)


class ReflectionRef(BaseModel):
    """A reflection the critic read, with the trial it was written after."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    trial: int = Field(ge=0)
    text: str


class Critique(BaseModel):
    """What one critique request showed the critic."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: CritiqueKind = Field(
        description="compare: a failed trial against its task's success; all_success: a chunk of successes."
    )
    tasks: list[str] = Field(description="Task ids in the order the request shows them.")
    trials: list[TrialRef] = Field(description="compare: [success, failed trial]; all_success: each success.")
    reflections: list[ReflectionRef] = Field(
        default_factory=list, description="Reflections shown (only with insights.read_reflections)."
    )


class Operation(BaseModel):
    """One operation of a critic's answer, as ExpeL's parse_rules keeps it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: OperationKind
    number: int | None = Field(
        description="The rule number written after the operation; None when absent, and always None for ADD "
        "(ExpeL drops it)."
    )
    text: str = Field(description="The rule text, stripped, ending with a period.")

    @property
    def label(self) -> str:
        """ExpeL's spelling of the operation: `ADD`, `EDIT 3`, `AGREE`."""
        return self.kind if self.number is None else f"{self.kind} {self.number}"


class RuleChange(BaseModel):
    """One change of one rule's count (and, for EDIT, its text), with the critique that made it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int = Field(ge=0, description="The critique's position in the sequence.")
    critique: Critique
    raw_answer: str = Field(description="The critic's answer exactly as returned.")
    operation: Operation = Field(description="The operation as parsed from the answer.")
    applied: Operation = Field(
        description="The operation as counted: an EDIT whose text contains an existing rule counts as AGREE of it."
    )
    delta: int = Field(description="ADD +2 (the start), AGREE +1, EDIT +1, REMOVE -1 (-3 when the list is full).")
    count: int = Field(description="The rule's count after the change.")
    previous_text: str | None = Field(None, description="EDIT: the text before the change.")


class Rule(BaseModel):
    """A rule of the library: its text, its count, and every change that made it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    count: int
    changes: list[RuleChange] = Field(default_factory=list)

    def reflections(self) -> list[ReflectionRef]:
        """The reflections read by the critiques that changed this rule, first reading first, each once."""
        seen: list[ReflectionRef] = []
        for change in self.changes:
            seen += [r for r in change.critique.reflections if r not in seen]
        return seen


class CritiqueStep(BaseModel):
    """One critique in the sequence: what it read, what the critic answered, what the answer did."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int = Field(ge=0)
    critique: Critique
    raw_answer: str
    operations: list[Operation] = Field(description="The operations parsed from the answer, in answer order.")
    screened_out: list[Operation] = Field(
        default_factory=list,
        description="Operations ExpeL's screening dropped before counting: an ADD containing a rule, an AGREE or "
        "REMOVE naming none, an EDIT past the end of the list or (a departure: ExpeL fails there) EDIT 0 on an "
        "empty list.",
    )
    prompt_full: bool = Field(description="The request asked to focus on REMOVE (max_num_rules rules or more).")
    list_full: bool = Field(description="REMOVE counted -3 (max_num_rules + 5 rules or more before the step).")
    rules: list[tuple[str, int]] = Field(description="The rule list after the step: (text, count), in order.")


class InsightsLedger(BaseModel):
    """The rule library after a sequence of critiques, with every step and every rule's history."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_num_rules: int = Field(ge=1)
    steps: list[CritiqueStep] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list, description="The library, in ExpeL's order (count, then age).")
    dropped: list[Rule] = Field(
        default_factory=list, description="Rules whose count fell to 0 or below, in the order they fell."
    )
