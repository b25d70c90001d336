"""Shares with their 95% intervals over tasks, as the bar plot draws them: solved (Clopper-Pearson over tasks) and
object mention (the mean over tasks of each task's share, with its Clopper-Pearson interval over tasks, as the
condition table shows it)."""

from __future__ import annotations

from harness.metrics.intervals import Share
from harness.metrics.task_shares import TaskShare, condition_task_shares
from harness.report._combine import ReportCondition


def percent_bar(estimate: Share) -> tuple[float, float, float] | None:
    """(share, share - low, high - share) in percent, as a bar with error bars; None when n is 0."""
    if estimate.share is None or estimate.low is None or estimate.high is None:
        return None
    return 100 * estimate.share, 100 * (estimate.share - estimate.low), 100 * (estimate.high - estimate.share)


SHARE_MEASURES = {
    "solved": "solved (% of tasks)",
    "strict": "object mention, strict (mean over tasks of % of reflections)",
    "normalized": "object mention, normalized (mean over tasks of % of reflections)",
}


def _share(share: TaskShare) -> Share:
    """A share over tasks as the plot's Share: its reflections counted, its mean over tasks and its interval."""
    return Share(successes=share.count, n=share.reflections, share=share.share, low=share.low, high=share.high)


def condition_shares(condition: ReportCondition) -> dict[str, Share]:
    """Solved over tasks, and object mention (strict, normalized) over tasks, keyed as SHARE_MEASURES."""
    over_tasks = condition_task_shares(condition.tasks)
    return {
        "solved": condition.totals.intervals.solved,
        "strict": _share(over_tasks.strict),
        "normalized": _share(over_tasks.normalized),
    }
