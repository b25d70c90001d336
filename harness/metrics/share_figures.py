"""The figures that are shares of reflections (an identity label, object mention), as the figure catalogue
(harness.metrics.figures) declares them: each the mean over tasks of a task's share, with its interval over tasks,
and metrics.json's counted share with Wilson's interval over reflections beside it."""

from __future__ import annotations

from harness.metrics import figure_text as text
from harness.metrics.chain_values import task_on_task_rate
from harness.metrics.core import TaskMetrics
from harness.metrics.figure_model import Figure, Measured, Paired, Value
from harness.metrics.identity import LabelShare
from harness.metrics.intervals import Share
from harness.metrics.task_shares import TaskShare
from harness.records.identity import IdentityLabel

SHARE_INTERVAL = "95% Clopper-Pearson over tasks (`_task_` columns); Wilson over reflections (counted columns)"


def counted_columns(prefix: str) -> tuple[str, ...]:
    """A count's columns: the count, its rate, and the rate's 95% bounds (solved: over tasks; a reflection share:
    Wilson's over reflections, as metrics.json holds it)."""
    return (prefix, f"{prefix}_rate", f"{prefix}_low", f"{prefix}_high")


def over_task_columns(prefix: str) -> tuple[str, ...]:
    """A share of reflections' columns over tasks: the tasks, the mean of their shares, and its interval's bounds."""
    return (f"{prefix}_tasks", f"{prefix}_task_mean", f"{prefix}_task_low", f"{prefix}_task_high")


def share_values(wilson: Share | LabelShare | None, over_tasks: TaskShare | None) -> tuple[Value, ...]:
    """A share's counted columns (`counted_columns`), then its columns over tasks (`over_task_columns`); None where
    not measured."""
    counted: tuple[Value, ...] = (None,) * 4
    if wilson is not None:
        count = wilson.count if isinstance(wilson, LabelShare) else wilson.successes
        counted = (count, wilson.share, wilson.low, wilson.high)
    tasks: tuple[Value, ...] = (None,) * 4
    if over_tasks is not None:
        tasks = (over_tasks.tasks, over_tasks.share, over_tasks.low, over_tasks.high)
    return (*counted, *tasks)


def _share_of(count: int, reflections: int) -> float | None:
    return count / reflections if reflections else None


def identity_label_figure(label: IdentityLabel) -> Figure:
    def values(m: Measured) -> tuple[Value, ...]:
        identity, shares = m.totals.identity, m.shares.identity
        return share_values(getattr(identity, label) if identity else None, shares[label] if shares else None)

    def task_value(task: TaskMetrics) -> float | None:
        return _share_of(task.identity.count(label), task.identity.reflections) if task.identity else None

    return Figure(
        name=label,
        description=f"Reflections labelled {label} by the domain's task-identity rule / reflections labelled, per "
        "task; the mean over tasks.",
        better="higher" if label == "on_task" else "lower",
        family="identity",
        per_task=f"its reflections labelled {label} / its reflections labelled (its chains pooled)",
        task_value=task_value,
        aggregate="mean",
        interval=SHARE_INTERVAL,
        columns=(*counted_columns(label), *over_task_columns(label)),
        values=values,
        headings=(label.replace("_", " "),),
        cells=lambda m: [text.task_share(m.shares.identity[label] if m.shares.identity else None)],
        tracked_as={f"identity_{label}": label, f"identity_{label}_share": f"{label}_rate"},
        paired=(
            Paired(
                measure="on_task_rate",
                label="on-task identity rate",
                per_task="the on-task identity rate (a task's reflections labelled on_task / its reflections labelled, "
                "its repeats pooled: the condition table's on task, per task)",
                task=task_on_task_rate,
            ),
        )
        if label == "on_task"
        else (),
    )


def mention_figure(rule: str) -> Figure:
    name = f"mention_{rule}"

    def task_value(task: TaskMetrics) -> float | None:
        return _share_of(getattr(task.mentions, rule), task.mentions.reflections)

    return Figure(
        name=name,
        description=f"Reflections naming the task's object by the domain's {rule} rule / reflections written, per "
        "task; the mean over tasks.",
        better="higher",
        family="mention",
        per_task=f"its reflections naming its object ({rule}) / its reflections",
        task_value=task_value,
        aggregate="mean",
        interval=SHARE_INTERVAL,
        columns=(*counted_columns(name), *over_task_columns(name)),
        values=lambda m: share_values(getattr(m.totals.intervals, rule), getattr(m.shares, rule)),
        headings=(f"object mention, {rule}",),
        cells=lambda m: [text.task_share(getattr(m.shares, rule))],
    )
