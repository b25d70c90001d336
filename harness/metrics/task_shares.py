"""Shares of reflections (a task-identity label, an object mention) as a mean over tasks, with an interval over tasks.

A task's share is its reflections with the label over its reflections; a condition's share is the mean of its tasks'
shares, so each task counts once (as in every other figure, and as the effects pair it), whatever number of
reflections its failures made it write: the reflections pooled would weight a task by how often it failed. The
reflections of one task are written about one task by one model and are alike, so the unit that varies independently
is the task: the interval is Clopper-Pearson's over tasks (harness.metrics.intervals.clopper_pearson), exact for
tasks whose shares are 0 or 1 and conservative between. A Wilson interval over reflections (metrics.json's) treats
them as independent and is narrower than the tasks support: 9 of 9 reflections from 3 tasks is 70%-100% by Wilson,
29%-100% over the 3 tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import TaskMetrics
from harness.metrics.intervals import CONFIDENCE, clopper_pearson
from harness.records.identity import IDENTITY_LABELS

NoInterval = Literal["no reflections"]
"""Why a share has no interval: no task wrote a reflection."""


class TaskShare(BaseModel):
    """`count` of `reflections` reflections from `tasks` tasks: the mean of the tasks' shares, with its interval
    over tasks."""

    model_config = ConfigDict(frozen=True)

    count: int = Field(ge=0, description="Reflections with the label (or naming the object), over every task.")
    reflections: int = Field(ge=0, description="Reflections written, over every task.")
    tasks: int = Field(ge=0, description="Tasks with at least one reflection: the units of the share and interval.")
    share: float | None = Field(description="Mean over `tasks` of each one's count / reflections; None without one.")
    low: float | None = Field(description="Lower end of the 95% interval over tasks; None with `no_interval`.")
    high: float | None = Field(description="Upper end of the same interval.")
    no_interval: NoInterval | None = Field(description="Why there is no interval; None when there is one.")


class ConditionTaskShares(BaseModel):
    """A condition's identity labels and object mentions as TaskShares."""

    model_config = ConfigDict(frozen=True)

    identity: dict[str, TaskShare] | None = Field(
        description="on_task, off_task, vacuous; None when some task has no identity labels (as metrics.json)."
    )
    strict: TaskShare = Field(description="Reflections naming the object by the strict rule.")
    normalized: TaskShare = Field(description="Reflections naming the object by the normalized rule.")


def task_share(per_task: Sequence[tuple[int, int]], confidence: float = CONFIDENCE) -> TaskShare:
    """(count, reflections) per task as the mean of the tasks' shares with its interval over tasks. Tasks without
    a reflection have no share and are left out of `tasks`."""
    written = [(count, n) for count, n in per_task if n > 0]
    count, reflections = sum(c for c, _ in written), sum(n for _, n in written)
    if not written:
        return TaskShare(count=0, reflections=0, tasks=0, share=None, low=None, high=None, no_interval="no reflections")
    total = min(float(sum(c / n for c, n in written)), float(len(written)))  # a sum of ones may round above n
    low, high = clopper_pearson(total, len(written), confidence)
    return TaskShare(
        count=count,
        reflections=reflections,
        tasks=len(written),
        share=total / len(written),
        low=low,
        high=high,
        no_interval=None,
    )


def condition_task_shares(tasks: Sequence[TaskMetrics]) -> ConditionTaskShares:
    """A condition's shares from its per-task figures (a task's repeats pooled already, so a task is one unit)."""
    labelled = [t.identity for t in tasks if t.identity is not None]
    identity = None
    if labelled and len(labelled) == len(tasks):
        identity = {
            label: task_share([(counts.count(label), counts.reflections) for counts in labelled])
            for label in IDENTITY_LABELS
        }
    return ConditionTaskShares(
        identity=identity,
        strict=task_share([(t.mentions.strict, t.mentions.reflections) for t in tasks]),
        normalized=task_share([(t.mentions.normalized, t.mentions.reflections) for t in tasks]),
    )
