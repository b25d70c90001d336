"""Task identity counted: how many reflections are on_task, off_task or vacuous, with Wilson intervals.

The labels come from each domain's identity rule (`harness.domains.<name>.identity`); this package counts them, and
its command (`reflexion-identity`, harness/cli/identity.py) labels reflections from other harnesses' logs.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.intervals import wilson_interval
from harness.records.identity import IDENTITY_LABELS, IdentityLabel, ReflectionIdentity


class LabelShare(BaseModel):
    """k of n reflections with one label, and its 95% Wilson interval (None without reflections)."""

    model_config = ConfigDict(frozen=True)

    count: int = Field(ge=0)
    share: float | None
    low: float | None
    high: float | None


class IdentityCounts(BaseModel):
    """Reflections by task-identity label."""

    model_config = ConfigDict(frozen=True)

    reflections: int = Field(0, ge=0, description="Reflections labelled (the denominator).")
    on_task: int = Field(0, ge=0)
    off_task: int = Field(0, ge=0)
    vacuous: int = Field(0, ge=0)

    def count(self, label: IdentityLabel) -> int:
        return int(getattr(self, label))

    def share(self, label: IdentityLabel) -> LabelShare:
        """The label's share with its Wilson interval over reflections (metrics.json's). A task's reflections are
        not independent of each other, so the interval is narrower than one that resamples tasks: the report's
        tables show harness.metrics.task_shares' instead."""
        k, n = self.count(label), self.reflections
        if n == 0:
            return LabelShare(count=0, share=None, low=None, high=None)
        low, high = wilson_interval(k, n)
        return LabelShare(count=k, share=k / n, low=low, high=high)

    def __add__(self, other: IdentityCounts) -> IdentityCounts:
        return IdentityCounts(
            reflections=self.reflections + other.reflections,
            on_task=self.on_task + other.on_task,
            off_task=self.off_task + other.off_task,
            vacuous=self.vacuous + other.vacuous,
        )


class IdentityShares(BaseModel):
    """IdentityCounts with each label's Wilson interval, as metrics.json keeps them per condition."""

    model_config = ConfigDict(frozen=True)

    reflections: int
    on_task: LabelShare
    off_task: LabelShare
    vacuous: LabelShare


def identity_counts(identities: Iterable[ReflectionIdentity]) -> IdentityCounts:
    labels = [identity.label for identity in identities]
    return IdentityCounts(reflections=len(labels), **{label: labels.count(label) for label in IDENTITY_LABELS})


def identity_shares(counts: IdentityCounts) -> IdentityShares:
    return IdentityShares(reflections=counts.reflections, **{label: counts.share(label) for label in IDENTITY_LABELS})
