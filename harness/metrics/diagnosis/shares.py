"""A diagnosis measure over reflections, per task and then over tasks: the mean of the tasks' shares, with the interval
over tasks the harness uses for every share of reflections (`harness.metrics.task_shares.task_share`, so a better
interval there is this one's too), so each task counts once however many reflections its failures made it write. The
chance row's values are expectations, not counts: its share is their mean over tasks likewise, with no interval."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from harness.metrics.diagnosis.row import MeasureShare
from harness.metrics.task_shares import task_share


def measure_share(per_task: Mapping[str, Sequence[float]], expected: bool = False) -> MeasureShare:
    """Each task's defined values (1 or 0; `expected`: the chance row's expectations) as one share over tasks."""
    written = {task: values for task, values in per_task.items() if values}
    count = sum(sum(values) for values in written.values())
    n = sum(len(values) for values in written.values())
    if not n:
        return MeasureShare(count=0, n=0, tasks=0, share=None, no_interval="no reflections")
    if expected or any(value not in (0.0, 1.0) for values in written.values() for value in values):
        share = sum(sum(values) / len(values) for values in written.values()) / len(written)
        return MeasureShare(count=count, n=n, tasks=len(written), share=share, no_interval="expected value")
    over_tasks = task_share([(int(sum(values)), len(values)) for values in written.values()])
    return MeasureShare(
        count=count,
        n=n,
        tasks=over_tasks.tasks,
        share=over_tasks.share,
        low=over_tasks.low,
        high=over_tasks.high,
        no_interval=over_tasks.no_interval,
    )


def by_task(items: Iterable[tuple[str, float | None]]) -> dict[str, list[float]]:
    """(task, value) pairs grouped by task, undefined values left out."""
    grouped: dict[str, list[float]] = {}
    for task, value in items:
        if value is not None:
            grouped.setdefault(task, []).append(value)
    return grouped
