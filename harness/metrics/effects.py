"""Effects: each condition against the control over the same tasks, from the records, by the paired tests of
harness.metrics.paired, Holm-adjusted across conditions within each measure.

A task's value under a condition is pooled over its chains: one chain is a (task, condition, repeat) -- or, when
runs are combined, a (run, repeat) -- in trial order; the task's value is the mean of its chains' defined values, so
repeats are never counted as extra tasks. The measures are the figure catalogue's paired figures
(harness.metrics.figures, `PAIRED`), each with its value per chain: solved (some trial won: 1, else 0), RRR of the
chain's reflections (undefined below two reflections), the on-task identity rate (undefined without a labelled
reflection), and any other the catalogue pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from statistics import mean

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import SIMILARITY_THRESHOLD
from harness.metrics.figures import PAIRED, Chain
from harness.metrics.paired import ALPHA, PairedDifference, holm_or_none, paired_difference
from harness.metrics.task_bootstrap import BOOTSTRAP_METHOD, CONFIDENCE_LEVEL, N_RESAMPLES, SEED
from harness.records import TrialRecord

CONTROL = "self_diagnosis"
"""The condition every other is compared with: Reflexion's own reflection."""

EFFECTS_FILE = "effects.json"

Measure = str
"""A paired figure's measure (harness.metrics.figures, `Paired.measure`)."""
MEASURES: dict[Measure, str] = {measure: paired.label for measure, paired in PAIRED.items()}

TaskChains = dict[str, dict[str, list[Chain]]]
"""condition -> task id -> its chains."""


class EffectRow(PairedDifference):
    """One (condition, measure) against the control."""

    condition: str = Field(description="The condition compared with the control.")
    measure: Measure = Field(description=f"The figure compared: {', '.join(MEASURES)}.")
    p_holm: float | None = Field(description="p adjusted by Holm's method over the conditions of this measure.")
    significant: bool = Field(description="p_holm < alpha.")


class Effects(BaseModel):
    """Every condition against the control, paired over tasks."""

    model_config = ConfigDict(frozen=True)

    control: str = Field(description="The control condition.")
    rows: list[EffectRow] = Field(description="By measure, then condition in order of appearance.")
    alpha: float = Field(ALPHA, description="Significance level applied to p_holm.")
    confidence_level: float = Field(CONFIDENCE_LEVEL, description="Coverage of the bootstrap interval.")
    bootstrap_method: str = Field(BOOTSTRAP_METHOD, description="scipy.stats.bootstrap's method, tasks resampled.")
    n_resamples: int = Field(N_RESAMPLES, description="Bootstrap resamples and random sign patterns.")
    seed: int = Field(SEED, description="Seed of the bootstrap and the permutation test.")
    similarity_threshold: float = Field(SIMILARITY_THRESHOLD, description="The RRR threshold used per chain.")


def group_chains(
    records: Iterable[TrialRecord], label: Callable[[TrialRecord], str] | None = None, source: str = ""
) -> TaskChains:
    """Records as chains: by condition (or `label(record)`), task, and (source, repeat), each in trial order."""
    grouped: dict[str, dict[str, dict[tuple[str, int], list[TrialRecord]]]] = {}
    for record in records:
        condition = label(record) if label else record.condition
        chain = grouped.setdefault(condition, {}).setdefault(record.task_id, {})
        chain.setdefault((source, record.repeat), []).append(record)
    return {
        condition: {
            task: [sorted(chain, key=lambda r: r.trial) for chain in chains.values()] for task, chains in tasks.items()
        }
        for condition, tasks in grouped.items()
    }


def merge_chains(parts: Iterable[TaskChains]) -> TaskChains:
    """Chains of several runs together: a task played in two runs has the chains of both."""
    merged: TaskChains = {}
    for part in parts:
        for condition, tasks in part.items():
            for task, chains in tasks.items():
                merged.setdefault(condition, {}).setdefault(task, []).extend(chains)
    return merged


def pooled(values: Iterable[float | None]) -> float | None:
    """Mean of the defined values (a task over its repeats); None when none is defined."""
    defined = [value for value in values if value is not None]
    return mean(defined) if defined else None


def task_values(chains: Mapping[str, list[Chain]], measure: Measure, threshold: float) -> dict[str, float | None]:
    """One condition's per-task values of a measure, pooled over each task's chains (`threshold`: RRR's)."""
    value = PAIRED[measure].chain
    return {task: pooled(value(chain, threshold) for chain in task_chains) for task, task_chains in chains.items()}


def effects_of_chains(
    chains: TaskChains,
    control: str = CONTROL,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    alpha: float = ALPHA,
    confidence_level: float = CONFIDENCE_LEVEL,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> Effects | None:
    """Each condition of `chains` but the control against it; None when no condition is the control.

    A measure no condition has a paired task for (on_task_rate in a domain without an identity rule) is left out.
    """
    if control not in chains:
        return None
    others = [condition for condition in chains if condition != control]
    rows: list[EffectRow] = []
    for measure in MEASURES:
        base = task_values(chains[control], measure, similarity_threshold)
        tests = [
            paired_difference(
                base,
                task_values(chains[c], measure, similarity_threshold),
                binary=PAIRED[measure].binary,
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                seed=seed,
            )
            for c in others
        ]
        if not any(test.n for test in tests):
            continue
        for condition, test, p_holm in zip(others, tests, holm_or_none([t.p for t in tests])):
            significant = p_holm is not None and p_holm < alpha
            rows.append(
                EffectRow(
                    **test.model_dump(), condition=condition, measure=measure, p_holm=p_holm, significant=significant
                )
            )
    return Effects(
        control=control,
        rows=rows,
        alpha=alpha,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        seed=seed,
        similarity_threshold=similarity_threshold,
    )


def effects(
    records: Sequence[TrialRecord], control: str = CONTROL, similarity_threshold: float = SIMILARITY_THRESHOLD
) -> Effects | None:
    """The effects of one run's records against `control`; None when the run has no such condition."""
    return effects_of_chains(group_chains(records), control, similarity_threshold)
