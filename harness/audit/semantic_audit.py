"""Semantic repetition in the published logs: each readable source's tasks under difflib's RRR and the semantic RRR."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.published import PublishedTask
from harness.audit.sources import PublishedSource
from harness.audit.task_rrr import TaskRRR
from harness.metrics.core import SIMILARITY_THRESHOLD
from harness.metrics.semantic import (
    EmbeddingCache,
    EmbeddingStats,
    RepetitionComparison,
    TaskRepetition,
    blank_rows_zeroed,
    compare_repetition,
    semantic_repetition_rate,
)


class SemanticSourceAudit(BaseModel):
    """One source's tasks compared under both rules."""

    model_config = ConfigDict(frozen=True)

    domain: str
    source: str = Field(description="Path relative to the logs root.")
    comparison: RepetitionComparison


class SemanticAudit(BaseModel):
    """The semantic part of audit.json: the rule, what embedding cost, and one comparison per readable source."""

    model_config = ConfigDict(frozen=True)

    threshold: float = Field(description="Cosine similarity at or above which a reflection repeats an earlier one.")
    difflib_threshold: float = Field(SIMILARITY_THRESHOLD, description="difflib's ratio threshold, for reference.")
    embedding: EmbeddingStats = Field(description="Distinct reflections, how many were embedded now, and the time.")
    sources: list[SemanticSourceAudit] = Field(description="In the order of the audit's sources table.")


def semantic_source_audit(
    domain: str,
    source: str,
    tasks: Sequence[PublishedTask],
    rated: Sequence[TaskRRR],
    cache: EmbeddingCache,
    threshold: float,
) -> SemanticSourceAudit:
    """Compare the two rules over one source; `rated` holds `tasks`' difflib figures, in the same order."""
    repetitions = [
        TaskRepetition(
            task_id=task.task_id,
            reflections=len(task.reflections),
            rrr=figures.rrr,
            semantic_rrr=semantic_repetition_rate(
                blank_rows_zeroed(cache.embed(task.reflections), task.reflections), threshold
            ),
        )
        for task, figures in zip(tasks, rated, strict=True)
    ]
    return SemanticSourceAudit(domain=domain, source=source, comparison=compare_repetition(repetitions))


def semantic_audit(
    measured: Sequence[tuple[PublishedSource, Sequence[PublishedTask], Sequence[TaskRRR]]],
    cache: EmbeddingCache,
    threshold: float,
) -> SemanticAudit:
    """Every source's comparison, from its tasks and their difflib figures, sorted like the sources table."""
    # One batch for every reflection of every source: the per-task passes below only read the cache.
    cache.embed([reflection for _, tasks, _ in measured for task in tasks for reflection in task.reflections])
    rows = [
        semantic_source_audit(source.domain, source.name, tasks, rated, cache, threshold)
        for source, tasks, rated in measured
    ]
    return SemanticAudit(
        threshold=threshold, embedding=cache.stats, sources=sorted(rows, key=lambda row: (row.domain, row.source))
    )
