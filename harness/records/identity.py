"""The task identity of a reflection: which task it plans for or diagnoses, as one label and the words that decided it.

A domain's identity rule writes it (`harness.domains.<name>.identity`); the record keeps it beside the reflection and
the metrics count it. Models only: no rule lives here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

IdentityLabel = Literal["on_task", "off_task", "vacuous"]
IDENTITY_LABELS: tuple[IdentityLabel, ...] = ("on_task", "off_task", "vacuous")

EvidenceKind = Literal[
    "goal", "other_goal", "destination", "task_type", "error_type", "failed_test", "article", "name", "other_name",
    "problem_term", "other_problem",
]


class IdentityEvidence(BaseModel):
    """One place of the reflection that took part in the decision: text[start:end], and what it was read as."""

    model_config = ConfigDict(frozen=True)

    kind: EvidenceKind = Field(
        description="goal: this task's object named as the goal; other_goal: another goal object; destination: where "
        "the plan puts the object, against the task's receptacle; task_type: a step of another task type; "
        "error_type, failed_test: what a code reflection names of its failure; problem_term, other_problem: what it "
        "names of this HumanEval problem or of another; name, other_name: a HotpotQA name of this question or "
        "foreign to it; article: a HotpotQA article named (rule hotpotqa/1, in older records)."
    )
    text: str = Field(description="The words as the reflection writes them.")
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    means: str = Field(description="What the words were read as, e.g. 'SaltShaker', or 'Microwave (task: Cabinet)'.")
    counts: bool = Field(
        description="True for the evidence that decided the label; False for what was read and set aside "
        "(an object taken by mistake, a step under a negation)."
    )


class ReflectionIdentity(BaseModel):
    """A reflection's label under its domain's identity rule, with the evidence."""

    model_config = ConfigDict(frozen=True)

    label: IdentityLabel = Field(
        description="on_task: about this task and nothing else; off_task: about another (ALFWorld: plans another goal "
        "object, or this one under another receptacle or task type; HotpotQA: another question's or a few-shot "
        "example's names; code: another problem's function or job); vacuous: names no task at all."
    )
    rule: str = Field(description="Which rule and version labelled it, e.g. 'alfworld/2'; a newer rule relabels.")
    evidence: list[IdentityEvidence] = Field(default_factory=list, description="In text order.")

    def deciding(self) -> list[IdentityEvidence]:
        """The evidence that decided the label."""
        return [item for item in self.evidence if item.counts]
