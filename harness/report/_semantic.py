"""Semantic RRR of a report's conditions, beside difflib's: each task's reflections read back from trials.jsonl.

metrics.json holds each task's RRR but not its reflections, so the texts come from the records. Like RRR, a task's
semantic RRR is measured per repeat's chain and pooled as the mean over its chains (harness.metrics.repeats).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.records import TRIALS_FILE, TrialRecord
from harness.report._combine import ReportCondition
from harness.report._runs import ReportInputError, RunData
from harness.metrics.run import ConditionReport
from harness.metrics.thresholds import Thresholds
from harness.metrics.semantic import (
    EmbeddingCache,
    EmbeddingStats,
    RepetitionComparison,
    TaskRepetition,
    blank_rows_zeroed,
    compare_repetition,
    pooled_semantic_rate,
)


class SemanticCondition(BaseModel):
    """One report condition under both repetition rules."""

    model_config = ConfigDict(frozen=True)

    label: str = Field(description="The condition's label in the report.")
    tasks: list[TaskRepetition] = Field(description="Every task of the condition, run by run.")
    comparison: RepetitionComparison


class SemanticReport(BaseModel):
    """The report's semantic section: the rule's threshold, difflib's, what embedding cost, and every condition."""

    model_config = ConfigDict(frozen=True)

    threshold: float = Field(description="Cosine similarity at or above which a reflection repeats an earlier one.")
    thresholds: Thresholds = Field(description="The report's RRR and frozen thresholds, as its condition table's.")
    embedding: EmbeddingStats
    conditions: list[SemanticCondition] = Field(description="In the report's condition order.")


def _chains(records: Sequence[TrialRecord], part: ConditionReport) -> dict[str, list[list[str]]]:
    """Each task's chains (one per repeat), each its reflections in trial order, from the records of one run's
    condition under its models: kept apart, as the run's metrics measure them, so that one chain's reflections are
    never read as repeats of another's."""
    mine = [
        r
        for r in records
        if (r.condition, r.actor_model, r.reflector_model) == (part.condition, part.actor_model, part.reflector_model)
    ]
    chains: dict[str, dict[int, list[str]]] = {}
    for record in sorted(mine, key=lambda r: (r.repeat, r.trial)):
        chain = chains.setdefault(record.task_id, {}).setdefault(record.repeat, [])
        if record.reflection is not None:
            chain.append(record.reflection)
    return {task: list(by_repeat.values()) for task, by_repeat in chains.items()}


def _part(run: RunData, condition: ReportCondition) -> ConditionReport:
    """The run's report of the condition under the condition's models (combine grouped them so)."""
    return next(
        c
        for c in run.metrics.conditions
        if (c.condition, c.actor_model, c.reflector_model)
        == (condition.condition, condition.actor_model, condition.reflector_model)
    )


def _run_tasks(
    run: RunData, records: Sequence[TrialRecord], condition: ReportCondition, cache: EmbeddingCache, threshold: float
) -> list[TaskRepetition]:
    part = _part(run, condition)
    chains = _chains(records, part)
    pooled = len(condition.runs) > 1
    tasks = []
    for task in part.tasks:
        # The run's metrics describe these records (harness.report._runs recomputes them otherwise).
        embedded = [blank_rows_zeroed(cache.embed(chain), chain) for chain in chains.get(task.task_id, [])]
        tasks.append(
            TaskRepetition(
                task_id=f"{run.name}: {task.task_id}" if pooled else task.task_id,
                reflections=task.reflections,
                rrr=task.rrr,
                semantic_rrr=pooled_semantic_rate(embedded, threshold),
                frozen_threshold=run.metrics.thresholds.frozen_threshold,
            )
        )
    return tasks


def semantic_report(
    runs: Sequence[RunData],
    conditions: Sequence[ReportCondition],
    cache: EmbeddingCache,
    threshold: float,
    thresholds: Thresholds,
) -> SemanticReport:
    """Both rules over every condition of the report, in the report's order; each task frozen at its run's
    `metrics.frozen_threshold`, as the condition table counts it. `thresholds`: the report's, for its sentence."""
    records = {run.name: run.records for run in runs}
    missing = [run.name for run in runs if not records[run.name]]
    if missing:
        raise ReportInputError(
            f"semantic RRR needs the reflections in {TRIALS_FILE}, and {', '.join(missing)} has none to read."
        )
    # One batch for every reflection of the report: the per-task passes below only read the cache.
    cache.embed([r.reflection for rs in records.values() for r in rs if r.reflection is not None])
    by_name = {run.name: run for run in runs}
    result = []
    for condition in conditions:
        tasks = [
            task
            for name in condition.runs
            for task in _run_tasks(by_name[name], records[name], condition, cache, threshold)
        ]
        result.append(SemanticCondition(label=condition.label, tasks=tasks, comparison=compare_repetition(tasks)))
    return SemanticReport(
        threshold=threshold, thresholds=thresholds, embedding=cache.stats, conditions=result
    )
