"""Shares with 95% Wilson score intervals: what the bar plot draws, computed apart from drawing it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.intervals import wilson_interval
from harness.report._combine import ReportCondition


class Share(BaseModel):
    """k of n, as a share with its 95% Wilson interval; share and bounds are None when n is 0."""

    model_config = ConfigDict(frozen=True)

    successes: int = Field(ge=0)
    n: int = Field(ge=0)
    share: float | None
    low: float | None
    high: float | None


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
