"""Paired tests of two conditions over the same tasks: McNemar's exact test on solved, the paired permutation test on
per-task values, the mean paired difference with the interval that inverts the permutation test (on solved, joined
with Tango's score interval: harness.metrics.paired_proportions), and Holm.

Pure functions over per-task values ({task_id: value}); pairing is by task id. A task on one side only, or whose
value is undefined (None or NaN) on either side, is dropped and counted, never imputed.

Why a paired permutation test (sign flips of the per-task differences) rather than Wilcoxon's signed-rank test:
its statistic is the mean difference, the quantity the interval estimates, so test and interval speak of one effect
(the interval is the set of shifts the test keeps: harness.metrics.sign_flip); and per-task RRR and identity rates
are shares with many ties and zero differences (RRR 0 on both sides is common), which Wilcoxon handles only by a
choice of `zero_method` that moves its p-value, while sign flips are exact under the null of exchangeable signs
whatever the ties. With 2**n <= `n_resamples` every sign pattern is enumerated (an exact p); above that
`n_resamples` of them are drawn at random from a seeded generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.fisher import holm
from harness.metrics.intervals import CONFIDENCE
from harness.metrics.paired_proportions import MIN_TASKS_FOR_BINARY_INTERVAL, score_interval
from harness.metrics.sign_flip import (
    MIN_TASKS_FOR_INTERVAL,
    N_RESAMPLES,
    SEED,
    alike_interval,
    sign_flip_intervals,
    sign_flip_p,
)

ALPHA = 0.05
"""Significance level of every paired test (on the Holm-adjusted p)."""

ZERO_DIFFERENCE = 1e-9
"""A sum of paired differences within this share of the sum of their sizes is 0: shares such as 1/3 sum to 0 only up
to rounding (1.5e-17), far below the smallest nonzero sum shares can make."""

PairedTestName = Literal["mcnemar_exact", "paired_permutation"]
NoInterval = Literal["too few tasks", "tasks alike"]
"""Why a difference has no interval: fewer paired tasks than the floor (MIN_TASKS_FOR_INTERVAL, or on solved with
McNemar's test MIN_TASKS_FOR_BINARY_INTERVAL); or every task's difference the same on a measure without known bounds
(with bounds, `alike_interval` gives one)."""

TEST_NOTES: dict[PairedTestName, str] = {
    "mcnemar_exact": "McNemar's exact test (two-sided binomial test of the discordant tasks at 1/2)",
    "paired_permutation": "paired permutation test of the mean difference (every sign of the per-task differences "
    "flipped at random, two-sided)",
}


class PairedDifference(BaseModel):
    """One measure of a condition against the control over the tasks both played."""

    model_config = ConfigDict(frozen=True)

    n: int = Field(ge=0, description="Tasks paired: played by both, with the measure defined on both sides.")
    dropped: int = Field(ge=0, description="Tasks of either side left out: on one side only, or undefined on one.")
    control_mean: float | None = Field(description="Mean of the control's per-task values over the paired tasks.")
    condition_mean: float | None = Field(description="Mean of the condition's per-task values over the paired tasks.")
    difference: float | None = Field(description="Mean of (condition - control) over the paired tasks.")
    ci_low: float | None = Field(
        description="The interval of `difference` that inverts the permutation test (with McNemar's test, joined "
        "with Tango's score interval; every difference alike, an exact bound); None with `no_interval`."
    )
    ci_high: float | None = Field(description="Upper end of the same interval.")
    no_interval: NoInterval | None = Field(None, description="Why there is no interval; None when there is one.")
    test: PairedTestName = Field(description="The test that gave `p`.")
    discordant: tuple[int, int] | None = Field(
        None, description="McNemar only: tasks solved by the condition alone, and by the control alone."
    )
    p: float | None = Field(description="Two-sided p of `test`; None without a paired task.")


def _defined(*values: float | None) -> bool:
    return all(value is not None and not math.isnan(value) for value in values)


def paired_values(
    control: Mapping[str, float | None], condition: Mapping[str, float | None]
) -> tuple[list[str], int]:
    """Task ids with a value on both sides (sorted), and how many tasks of either side were dropped."""
    both = sorted(task for task in control.keys() & condition.keys() if _defined(control[task], condition[task]))
    return both, len(control.keys() | condition.keys()) - len(both)


def mcnemar_exact(control: Sequence[bool], condition: Sequence[bool]) -> tuple[tuple[int, int], float]:
    """Discordant counts (condition only, control only) and McNemar's exact two-sided p; 1 with no discordant task."""
    from scipy.stats import binomtest

    gained = sum(b and not a for a, b in zip(control, condition))
    lost = sum(a and not b for a, b in zip(control, condition))
    if gained + lost == 0:
        return (0, 0), 1.0
    return (gained, lost), float(binomtest(gained, gained + lost, 0.5, alternative="two-sided").pvalue)


def _mean_statistic(sample: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(sample, axis=axis)


def paired_permutation_p(differences: Sequence[float], n_resamples: int = N_RESAMPLES, seed: int = SEED) -> float:
    """Two-sided p of the mean difference under random sign flips (harness.metrics.sign_flip); 1 when the mean
    difference is 0 (every sign pattern is as extreme: the tie tolerance is relative to the observed mean, so at 0
    the rounding noise of the resampled means would decide the ties), or for one task (its two signs are equally
    extreme). A difference that is not a finite number is refused (ValueError), never read as extreme."""
    values = np.asarray(differences, dtype=float)
    if len(values) < 2 or abs(values.sum()) <= ZERO_DIFFERENCE * np.abs(values).sum():
        if not np.all(np.isfinite(values)):
            return sign_flip_p(values)  # raises, naming the value
        return 1.0
    return sign_flip_p(values, n_resamples, seed)


def difference_interval(
    differences: Sequence[float],
    bounds: tuple[float, float] | None = None,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    binary: bool = False,
) -> tuple[tuple[float, float] | None, NoInterval | None]:
    """The interval of the mean difference, or None and why: below the floor (MIN_TASKS_FOR_INTERVAL tasks, or
    MIN_TASKS_FOR_BINARY_INTERVAL for `binary` differences of 0-or-1 values), none; every difference alike, the exact
    bound of `alike_interval` where the differences' `bounds` are known; otherwise the sign-flip interval
    (harness.metrics.sign_flip), for `binary` differences joined with Tango's score interval."""
    low, high, why = difference_intervals(
        np.asarray([differences], dtype=float), bounds, confidence, n_resamples, seed, binary=binary
    )
    if why[0] is not None:
        return None, why[0]
    return (float(low[0]), float(high[0])), None


def difference_intervals(
    studies: np.ndarray,
    bounds: tuple[float, float] | None = None,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    min_tasks: int | None = None,
    binary: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[NoInterval | None]]:
    """`difference_interval` of each row of `studies` (one study's differences per row), at once: the lower and
    upper ends (NaN where none) and why there is none (None where there is one). `binary`: differences of 0-or-1
    values (McNemar's case), whose interval also holds Tango's. `min_tasks`: the floor, by default
    MIN_TASKS_FOR_BINARY_INTERVAL or MIN_TASKS_FOR_INTERVAL (lowered only to measure what the interval would cover
    below it: benchmarks/interval_coverage.py)."""
    count, tasks = studies.shape
    low, high = np.full(count, np.nan), np.full(count, np.nan)
    why: list[NoInterval | None] = ["too few tasks"] * count
    floor = min_tasks if min_tasks is not None else MIN_TASKS_FOR_BINARY_INTERVAL if binary else MIN_TASKS_FOR_INTERVAL
    if tasks < floor:
        return low, high, why
    alike = np.ptp(studies, axis=1) == 0
    varied = np.flatnonzero(~alike)
    found = sign_flip_intervals(studies[varied], confidence, n_resamples, seed)
    if found is None:  # no sign pattern is rare enough at this size: the floor is the test's own
        return low, high, why
    low[varied], high[varied] = found
    for i in varied:
        why[i] = None
    for i in np.flatnonzero(alike):
        if bounds is None:
            why[i] = "tasks alike"
        else:
            low[i], high[i] = alike_interval(float(studies[i, 0]), tasks, bounds, confidence)
            why[i] = None
    if binary:
        _join_score_intervals(studies[varied], varied, low, high, confidence)
    return low, high, why


def _join_score_intervals(
    studies: np.ndarray, rows: np.ndarray, low: np.ndarray, high: np.ndarray, confidence: float
) -> None:
    """Widen the sign-flip interval of each of `studies` (0-or-1 differences; at `rows` of `low` and `high`) to hold
    Tango's score interval too, in place.

    Both hold the observed difference, so their union is an interval. It covers at least as often as Tango's, which
    stays near its level where a large effect sits near a bound and the sign-flip interval does not; and it holds 0
    exactly when the sign-flip one does, that is when the sign flips' p (McNemar's exact p, where every pattern is
    enumerated) is above alpha: Tango's holds 0 only where McNemar's asymptotic test keeps it, which the exact test
    keeps too (every table of 10 to 13 tasks: tests/harness/metrics/test_paired_proportions.py). Differences all
    alike keep their exact bound."""
    tasks = studies.shape[1]
    for row, differences in zip(rows, studies):
        gained, lost = int(np.sum(differences == 1.0)), int(np.sum(differences == -1.0))
        score_low, score_high = score_interval(gained, lost, tasks, confidence)
        low[row], high[row] = min(low[row], score_low), max(high[row], score_high)


def _is_binary(values: Sequence[float]) -> bool:
    return all(value in (0.0, 1.0) for value in values)


def paired_difference(
    control: Mapping[str, float | None],
    condition: Mapping[str, float | None],
    binary: bool = False,
    bounds: tuple[float, float] | None = None,
    confidence_level: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> PairedDifference:
    """The condition against the control over their shared tasks.

    `binary` (solved): McNemar's exact test while every per-task value is 0 or 1 (one repeat); once repeats make
    them shares the paired permutation test is used instead, and `test` says so. `bounds`: the range of a per-task
    value where it is known (a share: 0 to 1), for the interval when every difference is alike.
    """
    tasks, dropped = paired_values(control, condition)
    a = [float(control[task]) for task in tasks]  # type: ignore[arg-type]  # paired_values keeps defined values
    b = [float(condition[task]) for task in tasks]  # type: ignore[arg-type]  # paired_values keeps defined values
    differences = [y - x for x, y in zip(a, b)]
    mcnemar = binary and _is_binary(a) and _is_binary(b)
    test: PairedTestName = "mcnemar_exact" if mcnemar else "paired_permutation"
    if not tasks:
        return PairedDifference(
            n=0, dropped=dropped, control_mean=None, condition_mean=None, difference=None,
            ci_low=None, ci_high=None, no_interval=None, test=test, p=None,
        )  # fmt: skip
    discordant, p = None, None
    if mcnemar:
        discordant, p = mcnemar_exact([x == 1.0 for x in a], [y == 1.0 for y in b])
    else:
        p = paired_permutation_p(differences, n_resamples, seed)
    spread = None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])
    interval, no_interval = difference_interval(differences, spread, confidence_level, n_resamples, seed, mcnemar)
    return PairedDifference(
        n=len(tasks),
        dropped=dropped,
        control_mean=float(np.mean(a)),
        condition_mean=float(np.mean(b)),
        difference=float(np.mean(differences)),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        no_interval=no_interval,
        test=test,
        discordant=discordant,
        p=p,
    )


def holm_or_none(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's adjustment (harness.metrics.fisher.holm) over the defined p-values; None stays None."""
    defined = [p for p in p_values if p is not None]
    adjusted = iter(holm(defined))
    return [None if p is None else next(adjusted) for p in p_values]
