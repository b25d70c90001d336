"""difflib's RRR and the semantic RRR side by side: how many tasks each calls frozen, and which they disagree on."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import FROZEN_THRESHOLD, is_frozen


class TaskRepetition(BaseModel):
    """One task's repetition under both rules."""

    model_config = ConfigDict(frozen=True)

    task_id: str = Field(description="The task's name (prefixed by its run where a report pools several).")
    reflections: int = Field(ge=0, description="Reflections in its memory.")
    rrr: float | None = Field(description="difflib RRR; None below two reflections.")
    semantic_rrr: float | None = Field(description="Semantic RRR; None below two reflections.")
    frozen_threshold: float = Field(
        FROZEN_THRESHOLD,
        gt=0,
        le=1,
        description="Frozen at this rate or more, under both rules: the run's metrics.frozen_threshold, so the "
        "semantic table's difflib count is the condition table's.",
    )

    @property
    def frozen(self) -> bool:
        return is_frozen(self.rrr, self.frozen_threshold)

    @property
    def semantic_frozen(self) -> bool:
        return is_frozen(self.semantic_rrr, self.frozen_threshold)


class RepetitionComparison(BaseModel):
    """Both rates over a set of tasks, and the tasks frozen under one rule but not the other."""

    model_config = ConfigDict(frozen=True)

    n_with_rrr: int = Field(ge=0, description="Tasks with at least two reflections: both rates are defined.")
    mean_rrr: float | None = Field(description="Mean difflib RRR over them; None without one.")
    mean_semantic_rrr: float | None = Field(description="Mean semantic RRR over them; None without one.")
    n_frozen: int = Field(ge=0, description="Frozen by difflib RRR (>= each task's frozen threshold).")
    n_frozen_semantic: int = Field(ge=0, description="Frozen by semantic RRR (>= each task's frozen threshold).")
    n_frozen_both: int = Field(ge=0, description="Frozen by both.")
    frozen_agreement: float | None = Field(
        description="Share of the tasks with both rates on which the two frozen verdicts agree; None without one."
    )
    frozen_only_difflib: list[TaskRepetition] = Field(description="Frozen by difflib RRR, not by semantic RRR.")
    frozen_only_semantic: list[TaskRepetition] = Field(description="Frozen by semantic RRR, not by difflib RRR.")


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def compare_repetition(tasks: Sequence[TaskRepetition]) -> RepetitionComparison:
    """Compare the two rules over `tasks` (any tasks; those below two reflections count nowhere)."""
    rated = [t for t in tasks if t.rrr is not None and t.semantic_rrr is not None]
    only_difflib = [t for t in rated if t.frozen and not t.semantic_frozen]
    only_semantic = [t for t in rated if t.semantic_frozen and not t.frozen]
    return RepetitionComparison(
        n_with_rrr=len(rated),
        mean_rrr=_mean([t.rrr for t in rated if t.rrr is not None]),
        mean_semantic_rrr=_mean([t.semantic_rrr for t in rated if t.semantic_rrr is not None]),
        n_frozen=sum(t.frozen for t in rated),
        n_frozen_semantic=sum(t.semantic_frozen for t in rated),
        n_frozen_both=sum(t.frozen and t.semantic_frozen for t in rated),
        frozen_agreement=(len(rated) - len(only_difflib) - len(only_semantic)) / len(rated) if rated else None,
        frozen_only_difflib=only_difflib,
        frozen_only_semantic=only_semantic,
    )
