"""Tables of a run's metrics, as document blocks: the condition comparison and the per-task RRR grid."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import FROZEN_SHARE_RULE
from harness.metrics.curves import CurvePoint, ThresholdCurves
from harness.metrics.figures import Measured, report_cells, report_headings
from harness.metrics.run import ConditionReport
from harness.metrics.intervals import CONFIDENCE
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds
from harness.report.document import Block, Paragraph, Table

ROW_THRESHOLDS = "RRR >= its row's metrics.frozen_threshold"
"""The frozen column's rule when the rows were measured at other thresholds, each row's named in its label."""


def conditions_header(thresholds: Thresholds | None) -> list[str]:
    """The condition table's header, its frozen column named with the rule: "frozen (RRR >= 0.5)"; None: the rows
    were measured at different thresholds, named in their labels."""
    rule = thresholds.frozen_rule if thresholds is not None else ROW_THRESHOLDS
    return ["condition", "actor / reflector", *report_headings(rule)]


def _threshold_note(thresholds: Thresholds | None) -> str:
    if thresholds is None:
        return (
            f"Frozen: RRR >= the row's metrics.frozen_threshold, as {FROZEN_SHARE_RULE}; a reflection repeats "
            "an earlier one at the row's metrics.similarity_threshold: the runs were measured at different "
            "thresholds, so each row is at its own, named in its label, and no row pools two."
        )
    return (
        f"Frozen: {thresholds.frozen_rule} (metrics.frozen_threshold), as {FROZEN_SHARE_RULE}; a reflection "
        f"repeats an earlier one at {thresholds.repeat_rule} (metrics.similarity_threshold)."
    )


def _rrr(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _models(report: ConditionReport) -> str:
    if report.actor_model == report.reflector_model:
        return report.actor_model
    return f"{report.actor_model} / {report.reflector_model}"


def _condition_row(report: ConditionReport) -> list[str]:
    return [report.condition, _models(report), *report_cells(Measured(report.totals, report.tasks))]


def conditions_table(
    reports: Sequence[ConditionReport],
    mention_notes: Sequence[str],
    identity_notes: Sequence[str] = (),
    thresholds: Thresholds | None = DEFAULT_THRESHOLDS,
) -> list[Block]:
    """One row per condition: its figures as the catalogue writes them (harness.metrics.figures); under it,
    `identity_notes` and `mention_notes`: each domain's rules in a sentence, and the thresholds the figures were
    measured at (None: the rows' own, which their labels name)."""
    note = " ".join(
        [
            "On task, off task, vacuous: each task's reflections with the task-identity label / its reflections,",
            "the mean over the tasks that wrote one (each task counts once, however many reflections its failures",
            f"made it write), with the reflections counted and the {CONFIDENCE:.0%} Clopper-Pearson interval over",
            "tasks (a task's reflections are alike and move together, so the tasks are the units).",
            *identity_notes,
            "Object mention: each task's reflections naming its object / its reflections, the same mean over tasks",
            "with the same interval.",
            *(mention_notes or ["(The domain's strict and normalized rules.)"]),
            "Average RRR is over tasks with at least two reflections (count in brackets); RRR is undefined, not 0,",
            "below that.",
            _threshold_note(thresholds),
            "With repeats, a task counts once: its RRR is the mean over its chains (frozen when that mean is), and",
            "the share of chains won is a mean over tasks of each task's share.",
        ]
    )
    rows = [_condition_row(report) for report in reports]
    return [Table(conditions_header(thresholds), rows), Paragraph(note)]


def rrr_grid(reports: Sequence[ConditionReport]) -> list[Block]:
    """Tasks down, conditions across: each cell the task's RRR and reflection count, S if solved."""
    conditions = [r.condition for r in reports]
    cells: dict[str, dict[str, str]] = {}
    for report in reports:
        for task in report.tasks:
            solved = f", S@{task.solved_trial}" if task.solved_trial is not None else ""
            solved += f", {task.repeats} repeats" if task.repeats > 1 else ""
            cells.setdefault(task.task_id, {})[report.condition] = f"{_rrr(task.rrr)} ({task.reflections}{solved})"
    rows = [[task_id, *(cells[task_id].get(c, "-") for c in conditions)] for task_id in sorted(cells)]
    return [
        Table(["task", *conditions], rows),
        Paragraph("Each cell: RRR (reflections written, S@t when solved in 0-based trial t)."),
    ]


def _curve_cell(point: CurvePoint, tasks: int) -> str:
    if point.frozen_share is None:
        return "n/a"
    return f"{point.frozen_share:.2f} ({point.frozen_tasks}/{tasks})"


def _curve_table(curves: Sequence[ThresholdCurves], first: str, moving: str) -> Table:
    points = [getattr(c, moving) for c in curves]
    thresholds = curves[0].thresholds
    set_value = thresholds.similarity_threshold if moving == "similarity" else thresholds.frozen_threshold
    values = [getattr(p, f"{moving}_threshold") for p in points[0]]
    header = [first, *(f"{v:g} (set)" if v == set_value else f"{v:g}" for v in values)]
    return Table(header, [[c.label, *(_curve_cell(p, c.tasks) for p in ps)] for c, ps in zip(curves, points)])


def threshold_tables(curves: Sequence[ThresholdCurves], first: str) -> list[Block]:
    """The threshold curves as data: the frozen share (`FROZEN_SHARE_RULE`) at each similarity threshold, then at each
    frozen threshold, one row per curve (`first` names the rows: condition, domain)."""
    if not curves:
        return [Paragraph("No task with a defined RRR to draw threshold curves from.")]
    thresholds, share = curves[0].thresholds, f"Frozen share ({FROZEN_SHARE_RULE})"
    return [
        Paragraph(f"{share} as the similarity threshold moves (frozen: {thresholds.frozen_rule}):"),
        _curve_table(curves, first, "similarity"),
        Paragraph(f"{share} as the frozen threshold moves (repeat: {thresholds.repeat_rule}):"),
        _curve_table(curves, first, "frozen"),
    ]
