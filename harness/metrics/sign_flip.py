"""The sign-flip test of a mean over tasks (the paired permutation test) and the confidence interval that inverts it.

Paired per-task differences are exchangeable in sign under the null of no effect, so flipping the signs of the
differences gives the test's null distribution: exactly, over all 2**n sign patterns when they number at most
`N_RESAMPLES + 1`, else over `N_RESAMPLES` random ones from a seeded generator (the +1 counts the observed pattern, as
scipy.stats.permutation_test does). The p-value is scipy's for the same patterns: the statistic is the mean, ties
within a relative 100 machine epsilons of the observed mean count as extreme, and two-sided is twice the smaller tail.

The interval is the set of shifts m whose test of "the differences are symmetric about m" is not rejected at
1 - `CONFIDENCE`: for each pattern, flipping the tasks of a subset S is as extreme as the data exactly when the mean
of S's differences lies on the other side of m, so the interval runs from the K-th smallest to the K-th largest
subset mean (Hartigan 1969), K the fewest patterns the test needs to keep m. It is consistent with the test: 0 lies
in the interval exactly when p > alpha (up to the tie tolerance). With fewer than `MIN_TASKS_FOR_INTERVAL` tasks no
interval is given (`too_few_tasks`): at 5 tasks or fewer no sign pattern is rare enough to reject anything at 0.05,
and up to 14 its coverage in the simulated designs falls below 0.93 (docs/metrics.md, benchmarks/interval_coverage.py).
Where every task's difference is the same value v (no spread: every subset mean is v) the interval is the exact bound
of `alike_interval` instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from harness.metrics.intervals import CONFIDENCE

N_RESAMPLES = 9999
"""Random sign patterns of the test and its interval when all 2**n are too many."""

SEED = 0
"""Seed of the random sign patterns: the same differences give the same p and interval."""

MIN_TASKS_FOR_INTERVAL = 15
"""Fewest paired tasks an interval is given for. Below 6 the test cannot reject at 0.05 (2 of 2**5 patterns is
0.0625), so the interval would be the whole range; at 6 to 14 tasks it covers the true mean difference 0.90-0.97 in
the simulated designs (0.92-0.93 at 10 to 13 where a large effect on RRR sits near a bound, whose differences are
skewed), from 15 at least 0.93 (benchmarks/interval_coverage.py). Solved's 0-or-1 differences have their own floor
(harness.metrics.paired_proportions)."""

TIE_TOLERANCE = 100 * float(np.finfo(float).eps)
"""scipy's relative tolerance: a resampled mean this close to the observed one (relative to it) is as extreme."""


@lru_cache(maxsize=64)
def _patterns(n: int, n_resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    """Which tasks each sign pattern flips (rows of booleans), and whether the rows are every pattern (exact)."""
    if 2**n <= n_resamples:
        flips = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        return flips.astype(bool), True
    return np.random.default_rng(seed).random((n_resamples, n)) < 0.5, False


def _checked(differences: Sequence[float] | np.ndarray) -> np.ndarray:
    values = np.asarray(differences, dtype=float)
    if not np.all(np.isfinite(values)):
        bad = next(float(v) for v in values if not math.isfinite(v))
        raise ValueError(f"paired differences must be finite numbers, got {bad}: an undefined task is dropped first.")
    return values


def sign_flip_p(differences: Sequence[float] | np.ndarray, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> float:
    """Two-sided p of the mean difference under sign flips: scipy.stats.permutation_test's p for these patterns."""
    values = _checked(differences)
    flips, exact = _patterns(len(values), n_resamples, seed)
    null = np.mean(np.where(flips, -values, values), axis=-1)
    observed = float(np.mean(values))
    gamma = abs(TIE_TOLERANCE * observed)
    adjustment = 0 if exact else 1
    less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (len(flips) + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (len(flips) + adjustment)
    return float(min(1.0, 2 * min(less, greater)))


def alike_interval(value: float, tasks: int, bounds: tuple[float, float], confidence: float = CONFIDENCE
                   ) -> tuple[float, float]:  # fmt: skip
    """An exact bound for the mean of values in `bounds` when all `tasks` tasks gave the same `value`.

    If a task gives `value` with probability q, n tasks all give it with probability q**n; below q = (1 -
    confidence)**(1/n) that is rarer than the level allows. With q at least that, the mean lies within q * value +
    (1 - q) * (either bound). 9 of 9 on-task reflections from 3 tasks (value 1 in [0, 1]) is at least 0.37.
    """
    low, high = bounds
    q = (1 - confidence) ** (1 / tasks)
    return value - (1 - q) * (value - low), value + (1 - q) * (high - value)


def sign_flip_interval(
    differences: Sequence[float] | np.ndarray,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float] | None:
    """The interval of the mean difference that inverts `sign_flip_p` (its patterns); None when every shift is
    kept on a side (too few tasks for the level: at 5 tasks or fewer at 0.95)."""
    values = _checked(differences)
    bounds = sign_flip_intervals(values[None, :], confidence, n_resamples, seed)
    return None if bounds is None else (float(bounds[0][0]), float(bounds[1][0]))


def sign_flip_intervals(
    studies: np.ndarray,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    chunk: int = 200,
) -> tuple[np.ndarray, np.ndarray] | None:
    """`sign_flip_interval` of each row of `studies` (one row per study, its tasks' differences), at once: the
    lower and upper ends; None when the tasks are too few for the level."""
    flips, exact = _patterns(studies.shape[1], n_resamples, seed)
    adjustment = 0 if exact else 1
    # m is kept while 2 * (count + adjustment) / (patterns + adjustment) > alpha, count the patterns as extreme.
    needed = math.floor((1 - confidence) * (len(flips) + adjustment) / 2 - adjustment) + 1
    sizes = flips.sum(axis=1)
    empty = int(np.count_nonzero(sizes == 0))  # flipping nothing is the data itself: as extreme at every m
    rank = needed - empty
    subsets = flips[sizes > 0].T.astype(float) / sizes[sizes > 0]
    if rank <= 0 or 2 * rank > subsets.shape[1]:
        return None
    lows, highs = [np.empty(0)], [np.empty(0)]
    for start in range(0, len(studies), chunk):
        means = studies[start : start + chunk] @ subsets  # each subset's mean difference
        lows.append(np.partition(means, rank - 1, axis=1)[:, rank - 1])
        highs.append(-np.partition(-means, rank - 1, axis=1)[:, rank - 1])
    return np.concatenate(lows), np.concatenate(highs)
