"""A rate over independent units (builds, seeds, reflections) with its exact binomial interval, and how many units
a study would need before a rate like it could be bounded below a target."""

from __future__ import annotations

from functools import cache

CONFIDENCE = 0.95
"""The intervals' confidence."""
BOUND = 0.10
"""The rate a study wants to show it stays below (the gate's target)."""
MOST_UNITS = 10_000
"""Past this many units a bound is said to be out of reach."""


@cache
def exact_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Clopper-Pearson interval of k successes in n (0 to 1 when n is 0): the beta quantiles scipy's
    binomtest(k, n).proportion_ci(method="exact") gives, without its root search."""
    if n == 0:
        return 0.0, 1.0
    # Imported here, as in harness/metrics/intervals.py: every run imports this module, few compute a rate.
    from scipy.stats import beta

    tail = (1 - confidence) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


def upper_limit(k: int, n: int, confidence: float = CONFIDENCE) -> float:
    """The exact one-sided upper limit: 3 units with no event bound the rate below 63%."""
    return exact_interval(k, n, 2 * confidence - 1)[1]


def units_to_bound(k: int, n: int, bound: float = BOUND) -> int | None:
    """The fewest units at the observed rate k/n whose one-sided upper limit falls below `bound`; None when the rate
    is not below it (no number of units would do). With k = 0: 29 for 10%."""
    rate = k / n if n else 0.0
    if rate >= bound:
        return None
    low, high = 1, MOST_UNITS
    if upper_limit(round(rate * high), high) >= bound:
        return None
    while low < high:
        middle = (low + high) // 2
        if upper_limit(round(rate * middle), middle) < bound:
            high = middle
        else:
            low = middle + 1
    return low


def rate_cell(k: int, n: int) -> str:
    """'k/n (lo-hi%)' for a table."""
    low, high = exact_interval(k, n)
    return f"{k}/{n} ({low:.0%}-{high:.0%})"


def needed_cell(k: int, n: int) -> str:
    """The units a rate like k/n needs to be bounded below the target, for a table ("-" with no unit)."""
    if n == 0:
        return "-"
    needed = units_to_bound(k, n)
    return "never" if needed is None else str(needed)
