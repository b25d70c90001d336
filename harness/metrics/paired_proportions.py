"""Tango's score interval for the difference of two paired proportions (solved per task, one repeat: McNemar's case).

Over n paired tasks, `gained` solved by the condition alone and `lost` by the control alone, the difference of the
solved shares is theta = (gained - lost) / n. Tango (1998, Statistics in Medicine 17:891) inverts the score test of
theta: Z(theta) = (gained - lost - n theta) / sqrt(n (2 q + theta (1 - theta))), q the restricted maximum-likelihood
share of tasks solved by the control alone given theta (a root of a quadratic, closed form below); the interval is
every theta with |Z(theta)| <= z. At theta = 0, Z is McNemar's (gained - lost) / sqrt(gained + lost). Unlike the
sign-flip interval, which shifts the differences as if they stayed symmetric, it stays near its level where a large
effect sits near a bound (solved 0.7 vs 0.95: benchmarks/interval_coverage.py).
"""

from __future__ import annotations

import math
from statistics import NormalDist

MIN_TASKS_FOR_BINARY_INTERVAL = 10
"""Fewest paired tasks a solved difference (McNemar's case) gets an interval for: from 10 tasks the interval
(`harness.metrics.paired.difference_intervals`: this one joined with the sign-flip one) covers at least 0.93 in the
simulated designs; below, the sign-flip part can reject nothing at 5 tasks or fewer and the report withholds it as
it does every interval (benchmarks/interval_coverage.py)."""


def _restricted_lost_share(gained: int, lost: int, n: int, theta: float) -> float:
    """The maximum-likelihood share of tasks solved by the control alone when the difference is `theta`."""
    # The likelihood's derivative set to 0 is 2n q^2 + w q - lost theta (1 - theta) = 0; q is its root in [0, 1].
    w = -gained - lost + (2 * n - gained + lost) * theta
    return (math.sqrt(max(w * w + 8 * n * lost * theta * (1 - theta), 0.0)) - w) / (4 * n)


def score_statistic(gained: int, lost: int, n: int, theta: float) -> float:
    """Tango's Z at `theta` (infinite where its variance vanishes away from the estimate)."""
    excess = gained - lost - n * theta
    variance = n * (2 * _restricted_lost_share(gained, lost, n, theta) + theta * (1 - theta))
    if variance <= 0:
        return 0.0 if excess == 0 else math.copysign(math.inf, excess)
    return excess / math.sqrt(variance)


def score_interval(gained: int, lost: int, n: int, confidence: float) -> tuple[float, float]:
    """The thetas in [-1, 1] whose score test is not rejected at 1 - `confidence`."""
    if not 0 <= gained + lost <= n or min(gained, lost) < 0 or n <= 0:
        raise ValueError(f"gained {gained} and lost {lost} must be counts of the {n} paired tasks.")
    # scipy.optimize is imported here, not with the module: every run's report imports this one, few need the root.
    from scipy.optimize import brentq

    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    estimate = (gained - lost) / n
    edge = 1 - 1e-12

    def bound(side: float) -> float:
        # Z falls from +inf to -inf as theta goes from -1 to 1: the ends are where it crosses z and -z.
        if abs(score_statistic(gained, lost, n, side * edge)) <= z:
            return side
        return brentq(lambda t: abs(score_statistic(gained, lost, n, t)) - z, side * edge, estimate, xtol=1e-12)

    return bound(-1.0), bound(1.0)
