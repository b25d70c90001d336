"""The power of the re-reflection bank's paired test, computed exactly: McNemar's exact test on exact-step hits over
`pairs` trajectories, when a trajectory is hit by the condition alone with probability `gained` and by the control
alone with probability `lost` (each trajectory independently).

The discordant count m is Binomial(pairs, gained + lost) and, given m, the condition's share k is
Binomial(m, gained / (gained + lost)); the test rejects when the harness's p of (k, m) (`paired.mcnemar_exact`) is
below alpha. Power is the sum of the rejecting (k, m)'s probabilities: no sampling.
"""

from __future__ import annotations

from functools import cache

from harness.metrics.paired import ALPHA, mcnemar_exact


@cache
def _rejects(k: int, m: int, alpha: float) -> bool:
    _, p = mcnemar_exact([True] * (m - k) + [False] * k, [False] * (m - k) + [True] * k)
    return p < alpha


def mcnemar_power(pairs: int, gained: float, lost: float, alpha: float = ALPHA) -> float:
    """P(McNemar's exact test rejects at `alpha`) over `pairs` trajectories."""
    from scipy.stats import binom

    discordant = gained + lost
    if pairs < 1 or discordant <= 0:
        return 0.0
    toward = gained / discordant
    return float(sum(
        binom.pmf(m, pairs, discordant) * sum(binom.pmf(k, m, toward) for k in range(m + 1) if _rejects(k, m, alpha))
        for m in range(pairs + 1)
    ))


def pairs_for_power(gained: float, lost: float, target: float = 0.8, alpha: float = ALPHA, limit: int = 1000) -> int:
    """The fewest trajectories at which the test reaches `target` power (power is not monotone in the pairs of an
    exact test: the first size reaching it); `limit` + 1 when none up to `limit` does."""
    return next((n for n in range(1, limit + 1) if mcnemar_power(n, gained, lost, alpha) >= target), limit + 1)
