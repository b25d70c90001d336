"""Tables of a run's metrics, as document blocks: the condition comparison and the per-task RRR grid."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import MentionCounts
from harness.metrics.identity import IdentityShares, LabelShare
from harness.metrics.run import ConditionReport
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


def _ratio(numerator: int, denominator: int) -> str:
    return f"{numerator}/{denominator}" + (f" ({numerator / denominator:.0%})" if denominator else "")


def _rrr(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _mention(counts: MentionCounts, variant: str) -> str:
    return _ratio(getattr(counts, variant), counts.reflections)


def _label_share(share: LabelShare, reflections: int) -> str:
    if share.share is None or share.low is None or share.high is None:
        return f"{share.count}/{reflections}"
    return f"{share.count}/{reflections} ({share.share:.0%}; {share.low:.0%}-{share.high:.0%})"


def _identity(identity: IdentityShares | None) -> list[str]:
    """The three label cells; "-" where the domain has no identity rule."""
    if identity is None:
        return ["-", "-", "-"]
    return [_label_share(getattr(identity, label), identity.reflections) for label in ("on_task", "off_task", "vacuous")]


def _models(report: ConditionReport) -> str:
    if report.actor_model == report.reflector_model:
        return report.actor_model
    return f"{report.actor_model} / {report.reflector_model}"


def _condition_row(report: ConditionReport) -> list[str]:
    t = report.totals
    return [
        report.condition,
        _models(report),
        _ratio(t.solved, t.tasks),
        *_identity(t.identity),
        _mention(t.mentions, "strict"),
        _mention(t.mentions, "normalized"),
        f"{_rrr(t.mean_rrr)} ({t.rrr_defined})",
        f"{t.frozen}/{t.rrr_defined}",
        str(t.malformed),
    ]


def conditions_table(
    reports: Sequence[ConditionReport], mention_notes: Sequence[str], identity_notes: Sequence[str] = ()
) -> list[Block]:
    """One row per condition: solved, the task-identity labels, object mention (strict and normalized), average RRR,
    frozen, malformed; under it, `identity_notes` and `mention_notes`: each domain's rules in a sentence."""
    note = " ".join(
        [
            "On task, off task, vacuous: reflections by task-identity label / reflections written (share; 95% Wilson "
            "interval over reflections, which treats a task's reflections as independent).",
            *identity_notes,
            "Object mention: reflections naming the task's object / reflections written.",
            *(mention_notes or ["(The domain's strict and normalized rules.)"]),
            "Average RRR is over tasks with at least two reflections (count in brackets); RRR is undefined, not 0,",
            "below that. Frozen: RRR >= 0.5, over tasks with a defined RRR.",
        ]
    )
    return [Table(CONDITIONS_HEADER, [_condition_row(report) for report in reports]), Paragraph(note)]


def rrr_grid(reports: Sequence[ConditionReport]) -> list[Block]:
    """Tasks down, conditions across: each cell the task's RRR and reflection count, S if solved."""
    conditions = [r.condition for r in reports]
    cells: dict[str, dict[str, str]] = {}
    for report in reports:
        for task in report.tasks:
            solved = f", S@{task.solved_trial}" if task.solved_trial is not None else ""
            cells.setdefault(task.task_id, {})[report.condition] = f"{_rrr(task.rrr)} ({task.reflections}{solved})"
    rows = [[task_id, *(cells[task_id].get(c, "-") for c in conditions)] for task_id in sorted(cells)]
    return [
        Table(["task", *conditions], rows),
        Paragraph("Each cell: RRR (reflections written, S@t when solved in 0-based trial t)."),
    ]
