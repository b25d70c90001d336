"""What the page shows, as plain values: built from a run's records or from published logs, then rendered.

Nothing here is HTML: every string is the text as recorded, escaped only when the page is written.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.object_mention import MentionSpan
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds
from harness.records.identity import ReflectionIdentity
from harness.report.document import Document

_VIEW = ConfigDict(frozen=True)

Tone = Literal["plain", "good", "bad", "code"]


class DetailItem(BaseModel):
    """One line of a detail block: an optional label and its text."""

    model_config = _VIEW

    label: str | None = None
    text: str
    tone: Tone = Field("plain", description="good/bad colour the line; code keeps its layout in a monospace box.")


class DetailBlock(BaseModel):
    """What a reflection source kept beside the reflection (signals, template fields, the gate's decisions)."""

    model_config = _VIEW

    title: str
    items: list[DetailItem]
    folded: bool = Field(False, description="Shown closed (<details>), for long blocks such as code.")


class Nearest(BaseModel):
    """The earlier reflection most similar to this one (harness.metrics.core.most_similar_earlier)."""

    model_config = _VIEW

    entry: int = Field(ge=0, description="Index of the earlier entry in its group.")
    label: str = Field(description="How the page names the earlier entry, e.g. 'trial 0'.")
    similarity: float = Field(ge=0, le=1)
    repeats: bool = Field(description="similarity >= the RRR threshold: this reflection counts as a repeat.")


class Mention(BaseModel):
    """Whether a reflection names its object under each rule, and where."""

    model_config = _VIEW

    strict: bool
    normalized: bool
    spans: list[MentionSpan] = Field(default_factory=list, description="Empty when the domain has no span rule.")


class DiagnosisView(BaseModel):
    """Where the trial was lost and what its reflection claims (diagnosis.jsonl), for the reflection view."""

    model_config = _VIEW

    decisive_step: int | None = Field(description="1-based; None: no decisive agent step, or unscored.")
    category: str | None
    error_steps: list[int]
    claimed_steps: list[int]
    claimed_cause: str | None
    ambiguous: bool = Field(description="The reflection quotes an action text taken at several steps.")
    hit: bool | None = Field(description="It names the decisive step; None without one.")
    confabulated: list[tuple[str, str]] = Field(description="(kind, the words) of each claim its trial does not hold.")
    unscored: str | None = Field(description="Why the trial is not scored; None when it is.")


class Entry(BaseModel):
    """One trial of a task under a condition (or one published reflection)."""

    model_config = _VIEW

    label: str = Field(description="'trial 2', or 'reflection 3' for a published log.")
    success: bool | None = Field(None, description="The trial's outcome; None when the log does not say.")
    outcome: str | None = Field(None, description="e.g. 'max_steps, 15 steps'.")
    memory: str | None = Field(None, description="What the actor read before the trial, e.g. 'read trial 0, 1'.")
    reflection: str | None = None
    no_reflection: str | None = Field(None, description="Why there is no reflection, when there is none.")
    nearest: Nearest | None = None
    mention: Mention | None = Field(None, description="None without a mention rule or without a reflection.")
    identity: ReflectionIdentity | None = Field(
        None, description="The reflection's task-identity label and evidence; None without a rule or a reflection."
    )
    details: list[DetailBlock] = Field(default_factory=list)
    trajectory: list[tuple[str, str]] | None = Field(None, description="(action, observation) per step.")
    diagnosis: DiagnosisView | None = Field(None, description="None without the run's diagnosis of this trial.")


class Group(BaseModel):
    """One task under one condition: its trials in order and what the metrics made of them."""

    model_config = _VIEW

    task: str
    condition: str = Field(description="The condition's label (a published source's name in the audit).")
    run: str | None = Field(None, description="The run it comes from, when the page shows several.")
    target: str | None = Field(None, description="What object mention looks for; None when nothing is.")
    solved: bool
    solved_note: str = Field(description="e.g. 'solved in trial 2', 'unsolved after 3 trials'.")
    rrr: float | None = Field(description="The task's RRR as its metrics give it; None below two reflections.")
    frozen: bool
    entries: list[Entry]

    @property
    def reflections(self) -> list[Entry]:
        return [entry for entry in self.entries if entry.reflection is not None]

    @property
    def repeats(self) -> int:
        return sum(entry.nearest is not None and entry.nearest.repeats for entry in self.entries)


class Page(BaseModel):
    """The whole page: the report's document, then every group, filterable."""

    # The document is its own immutable model (harness.report.document), checked as an instance.
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    document: Document = Field(description="The report (report.md's or audit.md's document), at the top of the page.")
    condition_name: str = Field("condition", description="What the filter calls a condition ('source' in the audit).")
    conditions: list[str] = Field(description="Filter options, in report order.")
    mention_note: str = Field(description="What the highlighted object is, for the legend.")
    thresholds: Thresholds = Field(DEFAULT_THRESHOLDS, description="What the legend says a repeat and frozen are.")
    groups: list[Group]
    sections: Literal["by_task", "per_group"] = Field(
        "by_task",
        description="by_task: one section per task id, sorted, its groups in condition order (a run's page); "
        "per_group: one section per group, in the order given (the audit: source by source, where the same task "
        "id in two sources is two tasks).",
    )

    @property
    def title(self) -> str:
        return self.document.title
