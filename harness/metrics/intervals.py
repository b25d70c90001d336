"""Confidence intervals of shares: Clopper-Pearson's exact interval over tasks, and Wilson's score interval over
reflections (which takes a task's reflections as independent draws: metrics.json keeps it, the reports show the
interval over tasks)."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

CONFIDENCE = 0.95
"""Coverage of every interval the harness gives: a share's, and a paired difference's."""

Method = Literal["clopper-pearson", "wilson"]


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion: Newcombe's (1998) formula in the arithmetic of
    scipy.stats.binomtest(...).proportion_ci(method="wilson"), which gives the same floats (tested)."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"a Wilson interval needs 0 <= successes <= n and n > 0, got {successes}/{n}.")
    # scipy.special, not scipy.stats: every run's report asks for these intervals, and importing scipy.stats costs
    # each run process (each invocation of a killed and resumed run) about a second more than scipy.special.
    from scipy.special import ndtri

    p = successes / n
    z = float(ndtri(0.5 + 0.5 * confidence))
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    return (0.0 if successes == 0 else center - delta), (1.0 if successes == n else center + delta)


def clopper_pearson(total: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Clopper-Pearson's interval of the mean of n values in [0, 1] summing to `total`: exact (at least its level,
    for any share) when each value is 0 or 1, as tasks solved or not; for shares in between, the same beta quantiles
    at the real-valued total, conservative, as a value in [0, 1] varies less than a 0-or-1 value of the same mean
    (it covers at least 0.95 in the simulated designs: benchmarks/interval_coverage.py)."""
    if n <= 0 or not 0 <= total <= n:
        raise ValueError(f"a Clopper-Pearson interval needs 0 <= total <= n and n > 0, got {total}/{n}.")
    low, high = clopper_pearson_bounds(np.array([total], dtype=float), n, confidence)
    return float(low[0]), float(high[0])


def clopper_pearson_bounds(totals: np.ndarray, n: int, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """`clopper_pearson` of many totals over the same n at once: the lower and the upper ends."""
    from scipy.special import betaincinv  # beta.ppf's own routine (the same floats), without scipy.stats's import

    alpha = 1 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(totals <= 0, 0.0, betaincinv(totals, n - totals + 1, alpha / 2))
        high = np.where(totals >= n, 1.0, betaincinv(totals + 1, n - totals, 1 - alpha / 2))
    return low, high


class Share(BaseModel):
    """k of n, as a share with its 95% interval (`method`); share and bounds are None when n is 0."""

    model_config = ConfigDict(frozen=True)

    successes: int = Field(ge=0)
    n: int = Field(ge=0)
    share: float | None
    low: float | None
    high: float | None


def share(successes: int, n: int, method: Method = "wilson") -> Share:
    if n == 0:
        return Share(successes=0, n=0, share=None, low=None, high=None)
    bounds = clopper_pearson if method == "clopper-pearson" else wilson_interval
    low, high = bounds(successes, n)
    return Share(successes=successes, n=n, share=successes / n, low=low, high=high)


class ConditionIntervals(BaseModel):
    """A condition's solved tasks (Clopper-Pearson over tasks) and object-mentioning reflections (Wilson over
    reflections) as shares with their 95% intervals."""

    model_config = ConfigDict(frozen=True)

    solved: Share = Field(description="Tasks solved / tasks (a task counts once however many repeats).")
    strict: Share = Field(description="Reflections naming the object by the strict rule / reflections.")
    normalized: Share = Field(description="Reflections naming the object by the normalized rule / reflections.")
