"""The bootstrap over tasks that every interval of a figure across tasks uses: the mean paired difference of the
effects (harness.metrics.paired) and a share of reflections (harness.metrics.task_shares).

Tasks are the unit resampled, with replacement: a task's reflections (and its repeats) were written by one model
about one task, are alike, and move together; resampling reflections one by one would treat them as independent and
give an interval narrower than the data support.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

CONFIDENCE_LEVEL = 0.95
"""Coverage of every bootstrap interval over tasks."""

N_RESAMPLES = 9999
"""Resamples of the bootstrap (and random sign patterns of the paired permutation test)."""

SEED = 0
"""Seed of the bootstrap (and of the permutation test): the same records give the same interval and p."""

MIN_TASKS_FOR_INTERVAL = 3
"""Below this many tasks the bootstrap distribution has too few distinct values to give an interval."""

BOOTSTRAP_METHOD: Literal["BCa"] = "BCa"
"""Bias-corrected and accelerated percentiles (scipy's default): better coverage than plain percentiles with
skewed per-task values at a few dozen tasks."""

Statistic = Callable[..., np.ndarray]
"""statistic(*samples, axis): one value per slice along `axis`, each sample's tasks along it (scipy's vectorized
form)."""


def tasks_alike(samples: Sequence[Sequence[float]], statistic: Statistic) -> bool:
    """Whether every task alone gives the statistic the same value: then every resample does too (a mean of equal
    values, a ratio of sums of equal ratios), and there is no spread to make an interval of."""
    alone = statistic(*(np.asarray(sample, dtype=float)[:, None] for sample in samples), axis=-1)
    return bool(np.ptp(alone) == 0)


def task_bootstrap(
    samples: Sequence[Sequence[float]],
    statistic: Statistic,
    confidence_level: float = CONFIDENCE_LEVEL,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float] | None:
    """BCa bootstrap interval of `statistic` over tasks, or None.

    `samples` holds one sequence per quantity, one value per task in the same order (a share's counts and
    denominators); a resample draws tasks, keeping each task's values together. None below `MIN_TASKS_FOR_INTERVAL`
    tasks or when the tasks are alike (`tasks_alike`): the resampled values are then one value (or a handful),
    BCa's acceleration divides by zero, and no interval is honest.
    """
    from scipy.stats import bootstrap

    arrays = [np.asarray(sample, dtype=float) for sample in samples]
    if len(arrays[0]) < MIN_TASKS_FOR_INTERVAL or tasks_alike(arrays, statistic):
        return None
    result = bootstrap(
        arrays,
        statistic,
        paired=True,
        vectorized=True,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=BOOTSTRAP_METHOD,
        rng=np.random.default_rng(seed),
    )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return None if math.isnan(low) or math.isnan(high) else (low, high)
