"""The report's threshold section: how each condition's frozen share moves with the two thresholds, as a figure and
as tables, from the runs' records (harness.metrics.curves)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import FROZEN_SHARE_RULE
from harness.metrics.curves import ThresholdCurves, threshold_curves
from harness.metrics.thresholds import Thresholds
from harness.report._combine import ReportCondition
from harness.report._runs import RunData
from harness.report.plot_files import THRESHOLD_CURVES
from harness.report.document import Block, Figure, Paragraph, Section
from harness.report.tables import threshold_tables


def report_thresholds(runs: Sequence[RunData]) -> Thresholds:
    """The thresholds the report's figures use: the first run's (from its metrics.json; the defaults for a run
    written before they were recorded)."""
    return runs[0].metrics.thresholds


def _memories(runs: Sequence[RunData], condition: ReportCondition) -> dict[tuple[str, str], list[list[str]]]:
    """(run, task) -> each chain's reflections in trial order: a task of two runs is two entries, as the
    condition's totals count it."""
    chains: dict[tuple[str, str], dict[int, list[str]]] = {}
    for run in runs:
        if run.name not in condition.runs:
            continue
        mine = [r for r in run.records if r.condition == condition.condition]
        for record in sorted(mine, key=lambda r: (r.task_id, r.repeat, r.trial)):
            memory = chains.setdefault((run.name, record.task_id), {}).setdefault(record.repeat, [])
            if record.reflection is not None:
                memory.append(record.reflection)
    return {key: list(by_repeat.values()) for key, by_repeat in chains.items()}


def condition_curves(
    runs: Sequence[RunData], conditions: Sequence[ReportCondition], thresholds: Thresholds
) -> list[ThresholdCurves]:
    """One pair of curves per condition with a task with a defined RRR (a run reported from metrics.json alone has
    none)."""
    curves = [threshold_curves(c.label, _memories(runs, c), thresholds) for c in conditions]
    return [curve for curve in curves if curve.tasks]


def threshold_section(runs: Sequence[RunData], curves: Sequence[ThresholdCurves], thresholds: Thresholds) -> Section:
    """The figure and its numbers; a sentence when the runs' thresholds differ."""
    blocks: list[Block] = [
        Paragraph(
            f"The frozen share ({FROZEN_SHARE_RULE}), as each threshold moves and the other stays at its set value "
            f"(metrics.similarity_threshold: {thresholds.repeat_rule}; metrics.frozen_threshold: "
            f"{thresholds.frozen_rule}). A task counts once: with repeats, frozen when the mean RRR of its chains is. "
            "A condition without a task with an RRR has no curve. The set values are the study's empirical choices; "
            "the curves show how much the frozen figures rest on them."
        )
    ]
    differing = [run.name for run in runs if run.metrics.thresholds != thresholds]
    if differing:
        blocks.append(
            Paragraph(
                f"Runs measured at other thresholds than {runs[0].name}'s: {', '.join(differing)}; their tables' "
                "figures are at their own, these curves at the thresholds named above."
            )
        )
    if curves:
        blocks.append(Figure("Frozen share as each threshold moves", THRESHOLD_CURVES))
    blocks += threshold_tables(curves, "condition")
    return Section("Threshold curves", blocks)
