"""How the figure catalogue (harness.metrics.figures) writes a condition's figures as text: report.md's cells and the
index page's headline phrases."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import ConditionMetrics, TaskMetrics
from harness.metrics.identity import IdentityShares
from harness.metrics.task_shares import TaskShare
from harness.records.identity import IDENTITY_LABELS

UNDEFINED = "—"
"""The index page's mark for a figure with nothing to measure (never 0%)."""


def ratio(numerator: int, denominator: int) -> str:
    return f"{numerator}/{denominator}" + (f" ({numerator / denominator:.0%})" if denominator else "")


def mean_of(value: float | None, count: int) -> str:
    """A mean and how many it is over: "0.50 (2)", or "undefined (0)"."""
    return f"{'undefined' if value is None else f'{value:.2f}'} ({count})"


def task_share(share: TaskShare | None) -> str:
    """The mean of the tasks' shares over t tasks, the reflections counted, and the interval over tasks: "33% over
    3 tasks (4/9 reflections; 1%-91%)"; "-" when the domain has no rule for it."""
    if share is None:
        return "-"
    if share.share is None:
        return f"{share.count}/{share.reflections}"
    tasks = f"{share.tasks} task" + ("" if share.tasks == 1 else "s")
    counts = f"{share.count}/{share.reflections} reflections"
    if share.low is None or share.high is None:
        return f"{share.share:.0%} over {tasks} ({counts}; {share.no_interval})"
    return f"{share.share:.0%} over {tasks} ({counts}; {share.low:.0%}-{share.high:.0%})"


def repeats(tasks: Sequence[TaskMetrics]) -> str:
    """"3 repeats", or "1 to 3 repeats per task" for a row pooled from runs of different experiment.repeats."""
    counts = sorted({task.repeats for task in tasks})
    return f"{counts[0]} repeats" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} repeats per task"


def solved(totals: ConditionMetrics, tasks: Sequence[TaskMetrics]) -> str:
    """solved / tasks; with repeats, the mean share of each task's chains won beside it."""
    pooled = f"; chains won {totals.solved_share:.0%} (mean over tasks; {repeats(tasks)})" if totals.repeats > 1 else ""
    return ratio(totals.solved, totals.tasks) + pooled


def frozen(totals: ConditionMetrics) -> str:
    """Frozen tasks / tasks with a defined RRR, the one frozen share; "undefined" when no task has an RRR."""
    return ratio(totals.frozen, totals.rrr_defined) if totals.rrr_defined else "undefined"


def silent(tasks: Sequence[TaskMetrics]) -> str:
    """"; 1 silent": the tasks with a chain of blank reflections only (the `silent` figure), which have no RRR and
    so stand outside the frozen share; "" without one."""
    count = sum(1 for task in tasks if task.figures.get("silent"))
    return f"; {count} silent" if count else ""


def headline_solved(totals: ConditionMetrics) -> str:
    return f"solved {totals.solved_share:.0%} of {totals.tasks} task{'s' if totals.tasks != 1 else ''}"


def headline_frozen(totals: ConditionMetrics) -> str:
    """Frozen tasks / tasks with a defined RRR (the one frozen share); undefined, never 0%, without such a task."""
    if totals.frozen_share is None:
        return f"frozen {UNDEFINED} (no task with an RRR)"
    return f"frozen {totals.frozen}/{totals.rrr_defined} with an RRR ({totals.frozen_share:.0%})"


def headline_identity(identity: IdentityShares | None) -> str | None:
    """The task-identity shares of the condition's reflections, the study's headline measure; None when the domain
    has no identity rule."""
    if identity is None:
        return None
    if not identity.reflections:
        return f"task identity {UNDEFINED} (no reflection)"
    shares = [
        f"{label.replace('_', ' ')} {getattr(identity, label).count / identity.reflections:.0%}"
        for label in IDENTITY_LABELS
    ]
    plural = "s" if identity.reflections != 1 else ""
    return f"{', '.join(shares)} of {identity.reflections} reflection{plural}"
