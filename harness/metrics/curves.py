"""Threshold curves: the share of tasks whose memory is frozen as the similarity threshold moves (at the set frozen
threshold) and as the frozen threshold moves (at the set similarity threshold).

Each memory's nearest-earlier ratios are computed once (`most_similar_earlier`) and thresholded at every point
(`rrr_of_matches`, equal to `reflection_repetition_rate` at each threshold), so a curve costs one pass of
SequenceMatcher, not one per threshold. A task is one entry however many chains (repeats) it has, frozen by the mean
RRR of its chains as `pool_repeats` counts it, and the share has the one denominator (`FROZEN_SHARE_RULE`): tasks
with a defined RRR. So a curve at the set thresholds is the condition's `frozen_share`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import (
    EarlierMatch,
    frozen_share,
    is_frozen,
    is_silent,
    most_similar_earlier,
    rrr_of_matches,
)
from harness.metrics.thresholds import Thresholds

SIMILARITY_GRID = (0.70, 0.75, 0.80, 0.85, 0.90, 0.95)
FROZEN_GRID = (0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70)


_Task = TypeVar("_Task", bound=Hashable)
"""A task's key: its id, or (run, task) where a report keeps two runs' tasks apart."""

class CurvePoint(BaseModel):
    """The frozen share of tasks at one pair of thresholds."""

    model_config = ConfigDict(frozen=True)

    similarity_threshold: float
    frozen_threshold: float
    frozen_tasks: int = Field(ge=0, description="Tasks frozen: the mean RRR of their chains >= the frozen threshold.")
    frozen_share: float | None = Field(description="frozen_tasks / tasks with a defined RRR; None without one.")


class ThresholdCurves(BaseModel):
    """One condition's (or one published log's) two curves."""

    model_config = ConfigDict(frozen=True)

    label: str = Field(description="The condition, or the domain and its log.")
    tasks: int = Field(ge=0, description="Tasks with a defined RRR (the denominator), each once.")
    thresholds: Thresholds = Field(description="The set thresholds: each curve holds the other one fixed there.")
    similarity: list[CurvePoint] = Field(description="The similarity threshold moving, the frozen one set.")
    frozen: list[CurvePoint] = Field(description="The frozen threshold moving, the similarity one set.")


def grid(values: Sequence[float], set_value: float) -> list[float]:
    """The grid with the set value in it, so the curve passes through the figure the tables show."""
    return sorted({round(v, 4) for v in (*values, set_value)})


def _task_rrr(chains: Sequence[Sequence[EarlierMatch | None]], similarity: float) -> float | None:
    """The task's RRR at `similarity`: the mean over its chains where it is defined, as `pool_repeats` pools it."""
    rates = [rate for chain in chains if (rate := rrr_of_matches(chain, similarity)) is not None]
    return sum(rates) / len(rates) if rates else None


def _point(matches: Sequence[Sequence[Sequence[EarlierMatch | None]]], similarity: float, frozen: float) -> CurvePoint:
    rates = [_task_rrr(chains, similarity) for chains in matches]
    count = sum(is_frozen(rate, frozen) for rate in rates)
    return CurvePoint(
        similarity_threshold=similarity,
        frozen_threshold=frozen,
        frozen_tasks=count,
        frozen_share=frozen_share(count, len(matches)),
    )


def threshold_curves(
    label: str,
    memories: Mapping[_Task, Sequence[Sequence[str]]],
    thresholds: Thresholds,
    similarity_grid: Sequence[float] = SIMILARITY_GRID,
    frozen_grid: Sequence[float] = FROZEN_GRID,
) -> ThresholdCurves:
    """Both curves of the tasks in `memories` (task -> its chains' memories, reflections in trial order) that have a
    defined RRR: some chain with two reflections or more, not all blank, whatever the thresholds."""
    defined = [
        [memory for memory in chains if len(memory) >= 2 and not is_silent(memory)] for chains in memories.values()
    ]
    matches = [[most_similar_earlier(memory) for memory in chains] for chains in defined if chains]
    s, f = thresholds.similarity_threshold, thresholds.frozen_threshold
    return ThresholdCurves(
        label=label,
        tasks=len(matches),
        thresholds=thresholds,
        similarity=[_point(matches, value, f) for value in grid(similarity_grid, s)],
        frozen=[_point(matches, s, value) for value in grid(frozen_grid, f)],
    )
