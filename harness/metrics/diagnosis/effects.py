"""Each condition's diagnosis against the control's, paired.

Two tests per measure, each adjusted by Holm across the conditions:
- McNemar's exact test over the trajectories both sides diagnosed (the same steps, by hash): in the re-reflection bank
  every source diagnoses every stored trajectory, so each is one exact pair; in a run, the first trials the
  conditions share.
- the paired permutation test of the per-task mean, with its bootstrap interval over tasks
  (`harness.metrics.paired.paired_difference`): a task's value is the mean over its reflections, so tasks are the
  unit resampled, and in a run later trials (whose trajectories differ) are compared task by task.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.diagnosis.scores import MeasureName, score_claims
from harness.metrics.paired import (
    PairedDifference,
    holm_or_none,
    mcnemar_exact,
    paired_difference,
)
from harness.records.diagnosis_log import TrialDiagnosis

CONTROL = "self_diagnosis"
"""The condition every other is compared with: Reflexion's own reflection."""
PAIRED_MEASURES: tuple[MeasureName, ...] = ("exact", "within_2", "any_error", "cause", "joint", "confabulated")
"""The measures compared paired (exact step first: the primary measure of the comparison)."""

Unit = tuple[str, str]


class PairedEffect(BaseModel):
    """One measure of one condition against the control."""

    model_config = ConfigDict(frozen=True)

    condition: str
    measure: str
    pairs: int = Field(ge=0, description="Trajectories both diagnosed with the measure defined (McNemar's pairs).")
    discordant: tuple[int, int] = Field(description="Pairs right by the condition alone, and by the control alone.")
    mcnemar_p: float | None = Field(description="McNemar's exact two-sided p; None without a pair.")
    mcnemar_holm: float | None = Field(description="The same, Holm-adjusted across the conditions.")
    over_tasks: PairedDifference = Field(description="Per-task means: permutation p and bootstrap interval.")
    over_tasks_holm: float | None = Field(description="The permutation p, Holm-adjusted across the conditions.")


def _values(items: Sequence[TrialDiagnosis], condition: str, measure: MeasureName) -> dict[Unit, tuple[str, float]]:
    """The condition's value per trajectory (the last one where a trajectory was diagnosed twice)."""
    values: dict[Unit, tuple[str, float]] = {}
    for item in items:
        if item.condition != condition or item.claims is None:
            continue
        value = score_claims(item.truth, item.claims).value(measure)
        if value is not None:
            values[(item.task_id, item.trajectory_sha256)] = (item.task_id, value)
    return values


def _task_means(values: dict[Unit, tuple[str, float]]) -> dict[str, float | None]:
    grouped: dict[str, list[float]] = {}
    for task, value in values.values():
        grouped.setdefault(task, []).append(value)
    return {task: sum(v) / len(v) for task, v in grouped.items()}


def _effect(items: Sequence[TrialDiagnosis], condition: str, control: str, measure: MeasureName) -> PairedEffect:
    mine, theirs = _values(items, condition, measure), _values(items, control, measure)
    both = sorted(mine.keys() & theirs.keys())
    discordant, p = mcnemar_exact([theirs[u][1] == 1.0 for u in both], [mine[u][1] == 1.0 for u in both])
    return PairedEffect(
        condition=condition,
        measure=measure,
        pairs=len(both),
        discordant=discordant,
        mcnemar_p=p if both else None,
        mcnemar_holm=None,
        over_tasks=paired_difference(_task_means(theirs), _task_means(mine), bounds=(0.0, 1.0)),
        over_tasks_holm=None,
    )


def paired_effects(items: Sequence[TrialDiagnosis], conditions: Sequence[str], control: str) -> list[PairedEffect]:
    """Every condition but the control against it, measure by measure, Holm across conditions within a measure."""
    others = [c for c in conditions if c != control and any(i.condition == c and i.claims is not None for i in items)]
    effects: list[PairedEffect] = []
    for measure in PAIRED_MEASURES:
        found = [_effect(items, condition, control, measure) for condition in others]
        mcnemar = holm_or_none([e.mcnemar_p for e in found])
        permutation = holm_or_none([e.over_tasks.p for e in found])
        effects += [
            e.model_copy(update={"mcnemar_holm": m, "over_tasks_holm": q})
            for e, m, q in zip(found, mcnemar, permutation)
        ]
    return effects
