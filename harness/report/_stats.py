"""Shares with 95% Wilson score intervals: what the bar plot draws, as the condition metrics hold them."""

from __future__ import annotations

from harness.metrics.intervals import Share
from harness.report._combine import ReportCondition


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
    intervals = condition.totals.intervals
    return {"solved": intervals.solved, "strict": intervals.strict, "normalized": intervals.normalized}
