"""The report's effects: its conditions' records as chains (a condition kept apart keeps its label), paired over
tasks against the control by harness.metrics.effects; written to effects.json beside report.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from harness.metrics.effects import CONTROL, EFFECTS_FILE, Effects, effects_of_chains, group_chains, merge_chains
from harness.records import TrialRecord
from harness.records.whole_file import write_whole
from harness.report._combine import ReportCondition
from harness.report._runs import RunData


def _labelled(label: str) -> Callable[[TrialRecord], str]:
    """Every record of a report condition under its report label."""
    return lambda _: label


def report_effects(
    runs: Sequence[RunData], conditions: Sequence[ReportCondition], control: str = CONTROL
) -> tuple[Effects | None, str | None]:
    """The effects against the control, or None and why there are none.

    Each run's records are one source of chains, so a task played by two runs of a condition has both runs' chains
    (pooled into one value), and a sweep's jobs pair over the tasks they share. RRR is measured at the runs'
    `metrics.similarity_threshold` (runs of different thresholds are not compared).
    """
    controls = [c for c in conditions if c.condition == control]
    if not controls:
        return None, f"No condition named {control}: nothing to compare against."
    if len(controls) > 1:
        return None, (
            f"{control} is kept apart over runs (runs of the same tasks, or of other models, domains or thresholds): "
            "no single control here; each run's own report pairs its conditions."
        )
    thresholds = sorted({run.metrics.thresholds.similarity_threshold for run in runs})
    if len(thresholds) > 1:
        listed = ", ".join(map(str, thresholds))
        return None, f"The runs measure RRR at different similarity thresholds ({listed}): no single effect."
    by_name = {run.name: run for run in runs}
    # The runs' designs declare the primary measure; runs of designs that disagree have none, and every row is one
    # Holm family.
    primaries = {run.primary_measure for run in runs}
    parts = [
        group_chains(
            (r for r in by_name[name].records if r.condition == condition.condition),
            label=_labelled(condition.label),
            source=name,
        )
        for condition in conditions
        for name in condition.runs
    ]
    primary = primaries.pop() if len(primaries) == 1 else None
    result = effects_of_chains(merge_chains(parts), controls[0].label, thresholds[0], primary=primary)
    if result is None:
        return None, f"{control} has no trial record (its run holds metrics.json only): nothing to pair."
    if not result.rows:
        return None, f"No condition shares a task with {control}: nothing to pair."
    return result, None


def write_effects(effects: Effects | None, out_dir: Path) -> None:
    """effects.json beside report.md; an older one is removed when there are no effects now, never left stale."""
    path = Path(out_dir) / EFFECTS_FILE
    if effects is None:
        path.unlink(missing_ok=True)
    else:
        write_whole(path, effects.model_dump_json(indent=2) + "\n")
