"""Confidence intervals of shares: scipy's Wilson score interval, which stays in [0, 1] at k = 0 or k = n."""

from __future__ import annotations

from scipy.stats import binomtest


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (scipy.stats.binomtest(...).proportion_ci)."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"a Wilson interval needs 0 <= successes <= n and n > 0, got {successes}/{n}.")
    interval = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)
