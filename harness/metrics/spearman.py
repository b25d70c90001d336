"""Spearman's correlation of RRR with the trials a task took, under the two conventions the study's figures need."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

SpearmanConvention = Literal["tasks_with_rrr", "tasks_with_memory_rrr0"]
SPEARMAN_CONVENTIONS: dict[SpearmanConvention, str] = {
    "tasks_with_rrr": "tasks with >= 2 reflections (RRR defined)",
    "tasks_with_memory_rrr0": "tasks with >= 1 reflection, RRR taken as 0 where there is exactly one",
}


class SpearmanResult(BaseModel):
    """Spearman correlation of RRR with the trials a task took, under one convention."""

    model_config = ConfigDict(frozen=True)

    convention: SpearmanConvention = Field(description="Which tasks count, and how a single reflection counts.")
    n: int = Field(ge=0, description="Tasks in the correlation.")
    rho: float | None = Field(description="Spearman's rho; None when n < 3 or either variable is constant.")
    p: float | None = Field(description="Two-sided p-value from scipy.stats.spearmanr; None with rho.")


def spearman_rrr_vs_trials(
    pairs: Sequence[tuple[float | None, int, float]], convention: SpearmanConvention
) -> SpearmanResult:
    """Spearman of RRR against trials played, from (rrr, reflections, trials) per task.

    Trials played is the first won trial + 1, or every trial run for an unsolved task (censored at
    the budget), which is what "trials to solve" can mean for a task that never was.
    """
    if convention == "tasks_with_rrr":
        points = [(rrr, trials) for rrr, reflections, trials in pairs if rrr is not None]
    elif convention == "tasks_with_memory_rrr0":
        points = [(0.0 if rrr is None else rrr, trials) for rrr, reflections, trials in pairs if reflections >= 1]
    else:
        raise ValueError(f"unknown convention {convention!r}; accepted: {', '.join(SPEARMAN_CONVENTIONS)}.")
    xs, ys = [x for x, _ in points], [y for _, y in points]
    if len(points) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return SpearmanResult(convention=convention, n=len(points), rho=None, p=None)
    rho, p = _spearman(xs, ys)
    return SpearmanResult(convention=convention, n=len(points), rho=rho, p=p)


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """scipy.stats.spearmanr's rho and two-sided p in its own arithmetic (the same floats, tested): Pearson's r of
    the average ranks, and Student's t with n - 2 degrees of freedom. Written out because every run's report asks for
    it, and importing scipy.stats costs each run process half a second more than scipy.special."""
    from scipy.special import stdtr

    rho = np.corrcoef(_average_ranks(xs), _average_ranks(ys))[1, 0]
    dof = len(xs) - 2
    with np.errstate(divide="ignore"):
        t = rho * np.sqrt(np.clip(dof / ((rho + 1.0) * (1.0 - rho)), 0, None))
    return float(rho), float(2 * stdtr(dof, -np.abs(t)))


def _average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 1, ties given the mean of the ranks they span (scipy.stats.rankdata's "average")."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="mergesort")
    ranks = np.empty(len(array))
    sorted_values = array[order]
    start = 0
    for end in range(1, len(array) + 1):
        if end == len(array) or sorted_values[end] != sorted_values[start]:
            ranks[order[start:end]] = (start + 1 + end) / 2
            start = end
    return ranks
