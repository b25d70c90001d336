"""Shares of reflections (a task-identity label, an object mention) with intervals that resample tasks.

A condition's share is its reflections with the label over its reflections, summed over tasks. The reflections of one
task are written about one task by one model and are alike, so the unit that varies independently is the task: the
interval is harness.metrics.task_bootstrap's over tasks (a task's count and reflections resampled together, the
share of each resample its sum over its sum). A Wilson interval over reflections (metrics.json's) treats them as
independent and is narrower than the tasks support: 9 of 9 reflections from 3 tasks is 70%-100% by Wilson.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import TaskMetrics
from harness.metrics.task_bootstrap import (
    CONFIDENCE_LEVEL,
    MIN_TASKS_FOR_INTERVAL,
    N_RESAMPLES,
    SEED,
    task_bootstrap,
    tasks_alike,
)
from harness.records.identity import IDENTITY_LABELS

NoInterval = Literal["no reflections", "too few tasks", "tasks alike", "undefined"]
"""Why a share has no interval: no reflection; fewer than MIN_TASKS_FOR_INTERVAL tasks with one; every task's
share the same (no spread between tasks to resample); or a bootstrap that gave no finite bounds."""


class TaskShare(BaseModel):
    """`count` of `reflections` reflections from `tasks` tasks, with a bootstrap interval resampling the tasks."""

    model_config = ConfigDict(frozen=True)

    count: int = Field(ge=0, description="Reflections with the label (or naming the object), over every task.")
    reflections: int = Field(ge=0, description="Reflections written (the denominator), over every task.")
    tasks: int = Field(ge=0, description="Tasks with at least one reflection: the units the interval resamples.")
    share: float | None = Field(description="count / reflections; None without reflections.")
    low: float | None = Field(description="Lower end of the interval over tasks; None with `no_interval`.")
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


def _share_of_sums(counts: np.ndarray, reflections: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.sum(counts, axis=axis) / np.sum(reflections, axis=axis)


def task_share(
    per_task: Sequence[tuple[int, int]],
    confidence_level: float = CONFIDENCE_LEVEL,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> TaskShare:
    """(count, reflections) per task as one share with its bootstrap interval over tasks. Tasks without a
    reflection hold nothing to resample and are left out of `tasks`."""
    written = [(count, n) for count, n in per_task if n > 0]
    count, reflections = sum(c for c, _ in written), sum(n for _, n in written)
    if not written:
        return TaskShare(count=0, reflections=0, tasks=0, share=None, low=None, high=None, no_interval="no reflections")
    samples = [[c for c, _ in written], [n for _, n in written]]
    interval = task_bootstrap(samples, _share_of_sums, confidence_level, n_resamples, seed)
    why: NoInterval | None = None
    if interval is None:
        if len(written) < MIN_TASKS_FOR_INTERVAL:
            why = "too few tasks"
        else:
            why = "tasks alike" if tasks_alike(samples, _share_of_sums) else "undefined"
    return TaskShare(
        count=count,
        reflections=reflections,
        tasks=len(written),
        share=count / reflections,
        low=interval[0] if interval else None,
        high=interval[1] if interval else None,
        no_interval=why,
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
