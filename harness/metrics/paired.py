"""Paired tests of two conditions over the same tasks: McNemar's exact test on solved, a paired permutation test on
per-task values, the mean paired difference with a bootstrap interval over tasks, and Holm across conditions.

Pure functions over per-task values ({task_id: value}); pairing is by task id. A task on one side only, or whose
value is undefined on either side, is dropped and counted, never imputed.

Why a paired permutation test (sign flips of the per-task differences) rather than Wilcoxon's signed-rank test:
its statistic is the mean difference, the same quantity the bootstrap interval estimates, so test and interval speak
of one effect; and per-task RRR and identity rates are shares with many ties and zero differences (RRR 0 on both
sides is common), which Wilcoxon handles only by a choice of `zero_method` that moves its p-value, while sign flips
are exact under the null of exchangeable signs whatever the ties. With 2**n <= `n_resamples` scipy enumerates every
sign pattern (an exact p); above that it draws `n_resamples` of them at random from a seeded generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.fisher import holm
from harness.metrics.task_bootstrap import CONFIDENCE_LEVEL, N_RESAMPLES, SEED, task_bootstrap

ALPHA = 0.05
"""Significance level of every paired test (on the Holm-adjusted p)."""

ZERO_DIFFERENCE = 1e-9
"""A sum of paired differences within this share of the sum of their sizes is 0: shares such as 1/3 sum to 0 only up
to rounding (1.5e-17), far below the smallest nonzero sum shares can make."""

PairedTestName = Literal["mcnemar_exact", "paired_permutation"]

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
    ci_low: float | None = Field(description="Bootstrap interval of `difference`; None below 3 tasks or no variance.")
    ci_high: float | None = Field(description="Upper end of the same interval.")
    test: PairedTestName = Field(description="The test that gave `p`.")
    discordant: tuple[int, int] | None = Field(
        None, description="McNemar only: tasks solved by the condition alone, and by the control alone."
    )
    p: float | None = Field(description="Two-sided p of `test`; None without a paired task.")


def paired_values(
    control: Mapping[str, float | None], condition: Mapping[str, float | None]
) -> tuple[list[str], int]:
    """Task ids with a value on both sides (sorted), and how many tasks of either side were dropped."""
    both = sorted(
        task for task in control.keys() & condition.keys() if control[task] is not None and condition[task] is not None
    )
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
    """Two-sided p of the mean difference under random sign flips; 1 when the mean difference is 0 (every sign
    pattern is as extreme: scipy's tie tolerance is relative to the observed mean, so at 0 the rounding noise of the
    resampled means would decide the ties), or for one task (its two signs are equally extreme; scipy refuses a
    single observation)."""
    from scipy.stats import permutation_test

    values = np.asarray(differences, dtype=float)
    if len(values) < 2 or abs(values.sum()) <= ZERO_DIFFERENCE * np.abs(values).sum():
        return 1.0
    # With one sample, permutation_type="samples" flips the sign of each paired difference (x - y against y - x).
    result = permutation_test(
        (values,),
        _mean_statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return min(1.0, float(result.pvalue))


def bootstrap_interval(
    differences: Sequence[float],
    confidence_level: float = CONFIDENCE_LEVEL,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float] | None:
    """BCa bootstrap interval of the mean over tasks (harness.metrics.task_bootstrap), or None below
    `MIN_TASKS_FOR_INTERVAL` tasks or when every difference is equal."""
    return task_bootstrap([differences], _mean_statistic, confidence_level, n_resamples, seed)


def _is_binary(values: Sequence[float]) -> bool:
    return all(value in (0.0, 1.0) for value in values)


def paired_difference(
    control: Mapping[str, float | None],
    condition: Mapping[str, float | None],
    binary: bool = False,
    confidence_level: float = CONFIDENCE_LEVEL,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> PairedDifference:
    """The condition against the control over their shared tasks.

    `binary` (solved): McNemar's exact test while every per-task value is 0 or 1 (one repeat); once repeats make
    them shares the paired permutation test is used instead, and `test` says so.
    """
    tasks, dropped = paired_values(control, condition)
    a = [float(control[task]) for task in tasks]  # type: ignore[arg-type]
    b = [float(condition[task]) for task in tasks]  # type: ignore[arg-type]
    differences = [y - x for x, y in zip(a, b)]
    mcnemar = binary and _is_binary(a) and _is_binary(b)
    test: PairedTestName = "mcnemar_exact" if mcnemar else "paired_permutation"
    if not tasks:
        return PairedDifference(
            n=0, dropped=dropped, control_mean=None, condition_mean=None, difference=None,
            ci_low=None, ci_high=None, test=test, p=None,
        )  # fmt: skip
    discordant, p = None, None
    if mcnemar:
        discordant, p = mcnemar_exact([x == 1.0 for x in a], [y == 1.0 for y in b])
    else:
        p = paired_permutation_p(differences, n_resamples, seed)
    interval = bootstrap_interval(differences, confidence_level, n_resamples, seed)
    return PairedDifference(
        n=len(tasks),
        dropped=dropped,
        control_mean=float(np.mean(a)),
        condition_mean=float(np.mean(b)),
        difference=float(np.mean(differences)),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        test=test,
        discordant=discordant,
        p=p,
    )


def holm_or_none(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's adjustment (harness.metrics.fisher.holm) over the defined p-values; None stays None."""
    defined = [p for p in p_values if p is not None]
    adjusted = iter(holm(defined))
    return [None if p is None else next(adjusted) for p in p_values]
