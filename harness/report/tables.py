"""Tables of a run's metrics, as document blocks: the condition comparison and the per-task RRR grid."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import FROZEN_SHARE_RULE
from harness.metrics.curves import CurvePoint, ThresholdCurves
from harness.metrics.run import ConditionReport
from harness.metrics.task_bootstrap import BOOTSTRAP_METHOD, CONFIDENCE_LEVEL, MIN_TASKS_FOR_INTERVAL
from harness.metrics.task_shares import ConditionTaskShares, TaskShare, condition_task_shares
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds
from harness.records.identity import IDENTITY_LABELS
from harness.report.document import Block, Paragraph, Table

CONDITIONS_HEADER = [
    "condition",
    "actor / reflector",
    "solved / tasks",
    "on task",
    "off task",
    "vacuous",
    "object mention, strict",
    "object mention, normalized",
    "average RRR (tasks with RRR)",
    "frozen",
    "malformed answers",
]


ROW_THRESHOLDS = "RRR >= its row's metrics.frozen_threshold"
"""The frozen column's rule when the rows were measured at other thresholds, each row's named in its label."""


def conditions_header(thresholds: Thresholds | None) -> list[str]:
    """The condition table's header, its frozen column named with the rule: "frozen (RRR >= 0.5)"; None: the rows
    were measured at different thresholds, named in their labels."""
    rule = thresholds.frozen_rule if thresholds is not None else ROW_THRESHOLDS
    return [f"frozen ({rule})" if name == "frozen" else name for name in CONDITIONS_HEADER]


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


def _ratio(numerator: int, denominator: int) -> str:
    return f"{numerator}/{denominator}" + (f" ({numerator / denominator:.0%})" if denominator else "")


def _rrr(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _task_share(share: TaskShare) -> str:
    """k/n reflections from t tasks, the share and its interval over tasks, or why there is none."""
    if share.share is None:
        return f"{share.count}/{share.reflections}"
    tasks = f"{share.tasks} task" + ("" if share.tasks == 1 else "s")
    counts = f"{share.count}/{share.reflections} from {tasks}"
    if share.low is None or share.high is None:
        return f"{counts} ({share.share:.0%}; {share.no_interval})"
    return f"{counts} ({share.share:.0%}; {share.low:.0%}-{share.high:.0%})"


def _identity(shares: ConditionTaskShares) -> list[str]:
    """The three label cells; "-" where the domain has no identity rule."""
    if shares.identity is None:
        return ["-", "-", "-"]
    return [_task_share(shares.identity[label]) for label in IDENTITY_LABELS]


def _models(report: ConditionReport) -> str:
    if report.actor_model == report.reflector_model:
        return report.actor_model
    return f"{report.actor_model} / {report.reflector_model}"


def _solved(report: ConditionReport) -> str:
    """solved / tasks; with repeats, the mean share of each task's chains won beside it."""
    t = report.totals
    pooled = f"; chains won {t.solved_share:.0%} (mean over tasks; {_repeats(report)})" if t.repeats > 1 else ""
    return _ratio(t.solved, t.tasks) + pooled


def _repeats(report: ConditionReport) -> str:
    """"3 repeats", or "1 to 3 repeats per task" for a row pooled from runs of different experiment.repeats."""
    counts = sorted({task.repeats for task in report.tasks})
    return f"{counts[0]} repeats" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} repeats per task"


def _frozen(report: ConditionReport) -> str:
    """Frozen tasks / tasks with a defined RRR, the one frozen share; "undefined" when no task has an RRR."""
    t = report.totals
    return _ratio(t.frozen, t.rrr_defined) if t.rrr_defined else "undefined"


def _condition_row(report: ConditionReport) -> list[str]:
    t = report.totals
    shares = condition_task_shares(report.tasks)
    return [
        report.condition,
        _models(report),
        _solved(report),
        *_identity(shares),
        _task_share(shares.strict),
        _task_share(shares.normalized),
        f"{_rrr(t.mean_rrr)} ({t.rrr_defined})",
        _frozen(report),
        str(t.malformed),
    ]


def conditions_table(
    reports: Sequence[ConditionReport],
    mention_notes: Sequence[str],
    identity_notes: Sequence[str] = (),
    thresholds: Thresholds | None = DEFAULT_THRESHOLDS,
) -> list[Block]:
    """One row per condition: solved, the task-identity labels, object mention (strict and normalized), average RRR,
    frozen, malformed; under it, `identity_notes` and `mention_notes`: each domain's rules in a sentence, and the
    thresholds the figures were measured at (None: the rows' own, which their labels name)."""
    note = " ".join(
        [
            "On task, off task, vacuous: reflections by task-identity label / reflections written, from the tasks",
            f"that wrote them (share; {CONFIDENCE_LEVEL:.0%} {BOOTSTRAP_METHOD} bootstrap interval resampling",
            "tasks, as a task's reflections are alike and move together; no interval below",
            f"{MIN_TASKS_FOR_INTERVAL} tasks, or with every task's share alike).",
            *identity_notes,
            "Object mention: reflections naming the task's object / reflections written, from the tasks that wrote",
            "them (share; the same interval over tasks).",
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
