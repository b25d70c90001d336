"""Effects: each condition against the control over the same tasks, from the records, by the paired tests of
harness.metrics.paired, Holm-adjusted: the study design's primary measure over its conditions, the secondary
measures over all their rows together.

A task's value under a condition is pooled over its chains: one chain is a (task, condition, repeat) -- or, when
runs are combined, a (run, repeat) -- in trial order; the task's value is the mean of its chains' defined values, so
repeats are never counted as extra tasks. The measures are the figure catalogue's paired figures
(harness.metrics.figures, `PAIRED`), each with its value per chain: solved (some trial won: 1, else 0), RRR of the
chain's reflections (undefined below two reflections), the on-task identity rate (undefined without a labelled
reflection), and any other the catalogue pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import SIMILARITY_THRESHOLD
from harness.metrics.figures import PAIRED, Chain
from harness.metrics.thresholds import Thresholds
from harness.metrics.intervals import CONFIDENCE
from harness.metrics.paired import ALPHA, PairedDifference, holm_or_none, paired_difference
from harness.metrics.paired_proportions import MIN_TASKS_FOR_BINARY_INTERVAL
from harness.metrics.sign_flip import MIN_TASKS_FOR_INTERVAL, N_RESAMPLES, SEED
from harness.records import TrialRecord

CONTROL = "self_diagnosis"
"""The condition every other is compared with: Reflexion's own reflection."""

EFFECTS_FILE = "effects.json"

Measure = str
"""A paired figure's measure (harness.metrics.figures, `Paired.measure`)."""
MEASURES: dict[Measure, str] = {measure: paired.label for measure, paired in PAIRED.items()}
DEFAULT_PRIMARY: Measure = "solved"
"""The primary measure of a design that declares none: Reflexion's own outcome (metrics.primary_measure's default)."""

TaskChains = dict[str, dict[str, list[Chain]]]
"""condition -> task id -> its chains."""


class EffectRow(PairedDifference):
    """One (condition, measure) against the control."""

    condition: str = Field(description="The condition compared with the control.")
    measure: Measure = Field(description=f"The figure compared: {', '.join(MEASURES)}.")
    p_holm: float | None = Field(
        description="p adjusted by Holm's method: over the conditions of the primary measure, or over every row of "
        "the secondary measures together."
    )
    significant: bool = Field(description="p_holm < alpha.")


class Effects(BaseModel):
    """Every condition against the control, paired over tasks."""

    model_config = ConfigDict(frozen=True)

    control: str = Field(description="The control condition.")
    primary: Measure | None = Field(
        DEFAULT_PRIMARY,
        description="The study design's primary measure (metrics.primary_measure): Holm over its conditions alone; "
        "every other measure is secondary, adjusted over all its rows together. None: one family for every row.",
    )
    rows: list[EffectRow] = Field(description="By measure, then condition in order of appearance.")
    alpha: float = Field(ALPHA, description="Significance level applied to p_holm.")
    confidence_level: float = Field(CONFIDENCE, description="Coverage of the interval.")
    min_tasks_for_interval: int = Field(MIN_TASKS_FOR_INTERVAL, description="Fewest paired tasks given an interval.")
    min_tasks_for_binary_interval: int = Field(
        MIN_TASKS_FOR_BINARY_INTERVAL, description="Fewest paired tasks given an interval on solved under McNemar's test."
    )
    n_resamples: int = Field(N_RESAMPLES, description="Random sign patterns, when all of them are too many.")
    seed: int = Field(SEED, description="Seed of the random sign patterns.")
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


def task_values(chains: Mapping[str, list[Chain]], measure: Measure, threshold: float) -> dict[str, float | None]:
    """One condition's per-task values of a measure, from each task's chains (`threshold`: RRR's)."""
    paired, thresholds = PAIRED[measure], Thresholds(similarity_threshold=threshold)
    return {task: paired.task_value(task_chains, thresholds) for task, task_chains in chains.items()}


def measure_values(
    control: Mapping[str, list[Chain]], condition: Mapping[str, list[Chain]], measure: Measure, threshold: float
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """The control's and the condition's per-task values of a measure: each side's own (`task_values`), or, for a
    measure matched within the task (`Paired.matched`), both from the task's chains under both conditions."""
    paired = PAIRED[measure]
    if paired.matched is None:
        return task_values(control, measure, threshold), task_values(condition, measure, threshold)
    thresholds = Thresholds(similarity_threshold=threshold)
    pairs = {task: paired.matched(control.get(task, []), condition.get(task, []), thresholds)
             for task in control.keys() | condition.keys()}  # fmt: skip
    return (
        {task: None if pair is None else pair[0] for task, pair in pairs.items()},
        {task: None if pair is None else pair[1] for task, pair in pairs.items()},
    )


def adjusted(rows: Sequence[tuple[Measure, PairedDifference]], primary: Measure | None) -> list[float | None]:
    """Holm's p of each row: the primary measure's rows are one family (Holm over the conditions); every other row
    is one family together, measures and conditions alike, so testing more secondary measures costs each of them.
    Without a primary measure every row is one family."""
    families = [[i for i, (measure, _) in enumerate(rows) if (measure == primary) == side] for side in (True, False)]
    p_holm: list[float | None] = [None] * len(rows)
    for family in families:
        for i, p in zip(family, holm_or_none([rows[i][1].p for i in family])):
            p_holm[i] = p
    return p_holm


def effects_of_chains(
    chains: TaskChains,
    control: str = CONTROL,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    alpha: float = ALPHA,
    confidence_level: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    primary: Measure | None = DEFAULT_PRIMARY,
) -> Effects | None:
    """Each condition of `chains` but the control against it; None when no condition is the control.

    A measure no condition has a paired task for (on_task_rate in a domain without an identity rule) is left out.
    `primary`: the study design's primary measure (metrics.primary_measure), its own family for Holm (`adjusted`).
    """
    if control not in chains:
        return None
    others = [condition for condition in chains if condition != control]
    tested: list[tuple[Measure, str, PairedDifference]] = []
    for measure in MEASURES:
        paired = PAIRED[measure]
        tests = [
            paired_difference(
                *measure_values(chains[control], chains[c], measure, similarity_threshold),
                binary=paired.binary,
                bounds=paired.bounds,
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                seed=seed,
            )
            for c in others
        ]
        if any(test.n for test in tests):
            tested += [(measure, condition, test) for condition, test in zip(others, tests)]
    p_holm = adjusted([(measure, test) for measure, _, test in tested], primary)
    rows = [
        EffectRow(
            **test.model_dump(),
            condition=condition,
            measure=measure,
            p_holm=p,
            significant=p is not None and p < alpha,
        )
        for (measure, condition, test), p in zip(tested, p_holm)
    ]
    return Effects(
        control=control,
        primary=primary,
        rows=rows,
        alpha=alpha,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        seed=seed,
        similarity_threshold=similarity_threshold,
    )


def effects(
    records: Sequence[TrialRecord],
    control: str = CONTROL,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    primary: Measure | None = DEFAULT_PRIMARY,
) -> Effects | None:
    """The effects of one run's records against `control`; None when the run has no such condition."""
    return effects_of_chains(group_chains(records), control, similarity_threshold, primary=primary)
