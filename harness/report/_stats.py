"""Shares with 95% Wilson score intervals: what the bar plot draws, computed apart from drawing it."""

from __future__ import annotations

import math
from statistics import NormalDist

from pydantic import BaseModel, ConfigDict, Field

from harness.report._combine import ReportCondition

Z_95 = NormalDist().inv_cdf(0.975)
"""The standard normal quantile of a two-sided 95% interval (1.959964...)."""


class Share(BaseModel):
    """k of n, as a share with its 95% Wilson interval; share and bounds are None when n is 0."""

    model_config = ConfigDict(frozen=True)

    successes: int = Field(ge=0)
    n: int = Field(ge=0)
    share: float | None
    low: float | None
    high: float | None


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; unlike the Wald interval it stays in [0, 1] at k = 0 or n."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"a Wilson interval needs 0 <= successes <= n and n > 0, got {successes}/{n}.")
    p = successes / n
    denominator = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    # Exact arithmetic keeps the bounds in [0, 1]; floating point can step past them at k = 0 or k = n.
    return max(0.0, centre - half), min(1.0, centre + half)


def share(successes: int, n: int) -> Share:
    if n == 0:
        return Share(successes=0, n=0, share=None, low=None, high=None)
    low, high = wilson_interval(successes, n)
    return Share(successes=successes, n=n, share=successes / n, low=low, high=high)


def percent_bar(estimate: Share) -> tuple[float, float, float] | None:
    """(share, share - low, high - share) in percent, as a bar with error bars; None when n is 0."""
    if estimate.share is None or estimate.low is None or estimate.high is None:
        return None
    return 100 * estimate.share, 100 * (estimate.share - estimate.low), 100 * (estimate.high - estimate.share)


SHARE_MEASURES = {
    "solved": "solved (% of tasks)",
    "strict": "object mention, strict (% of reflections)",
    "normalized": "object mention, normalized (% of reflections)",
}


def condition_shares(condition: ReportCondition) -> dict[str, Share]:
    """Solved over tasks, and object mention (strict, normalized) over reflections, keyed as SHARE_MEASURES."""
    t = condition.totals
    return {
        "solved": share(t.solved, t.tasks),
        "strict": share(t.mentions.strict, t.mentions.reflections),
        "normalized": share(t.mentions.normalized, t.mentions.reflections),
    }
