"""The diagnosis figures of the figure catalogue (harness.metrics.figures): each condition's diagnosis row
(`ConditionMetrics.diagnosis`) as data columns, so the CSV and LaTeX tables, the DataFrames, MLflow and the index page
get them; report.md shows them in its Diagnosis section (with the chance and heuristic rows), not in the condition
table. Declared here as the catalogue's Figure fields, which the catalogue makes into its entries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from harness.metrics.diagnosis.row import DiagnosisRow, MeasureShare
from harness.metrics.diagnosis.scores import MEASURES, MeasureName

CATALOGUED: tuple[MeasureName, ...] = ("exact", "within_2", "any_error", "post_mortem", "cause", "joint", "confabulated")
"""The measures a condition's data columns carry (localises and within 1 stay in the section's tables)."""


class _Totals(Protocol):
    diagnosis: DiagnosisRow | None


class _Measured(Protocol):
    totals: _Totals


Value = str | int | float | bool | None


def figure_name(measure: str) -> str:
    """The catalogue's name of a measure's figure, and of its value in `TaskMetrics.figures`."""
    return f"diagnosis_{measure}"


def _measure(row: DiagnosisRow | None, name: str) -> MeasureShare | None:
    return None if row is None else row.measures.get(name)


def _values(name: str) -> Callable[[_Measured], Sequence[Value]]:
    def values(measured: _Measured) -> tuple[Value, ...]:
        share = _measure(measured.totals.diagnosis, name)
        if share is None:
            return (None,) * 5
        return (share.count, share.n, share.share, share.low, share.high)

    return values


def _headline(measured: _Measured) -> str | None:
    row = measured.totals.diagnosis
    exact, confabulated = _measure(row, "exact"), _measure(row, "confabulated")
    if row is None or exact is None or confabulated is None or exact.share is None or confabulated.share is None:
        return None
    return (f"diagnosis: exact step {exact.count:g}/{exact.n} ({exact.share:.0%}), confabulated "
            f"{confabulated.share:.0%} of {row.trials} scored reflections")


def diagnosis_figure_fields() -> list[dict[str, Any]]:
    """Each catalogued measure as the fields of one `harness.metrics.figure_model.Figure` (family "diagnosis"): its
    value per task is the task's mean over its scored reflections (`TaskMetrics.figures`, from diagnosis.jsonl), the
    condition's the mean over tasks, as its share over tasks."""
    described = {m.name: m for m in MEASURES}
    return [
        {
            "name": figure_name(name),
            "description": f"Diagnosis, {described[name].heading}: {described[name].description} (diagnosis.jsonl.)",
            "better": described[name].better,
            "family": "diagnosis",
            "per_task": f"the share of its scored reflections that score 1 on {described[name].heading}",
            "task_value": _task_value(figure_name(name)),
            "aggregate": "mean",
            "interval": "over tasks",
            "columns": tuple(f"{figure_name(name)}{part}" for part in ("", "_n", "_rate", "_task_low", "_task_high")),
            "values": _values(name),
            "headline": _headline if name == "exact" else None,
        }
        for name in CATALOGUED
    ]


def _task_value(name: str) -> Callable[[Any], float | None]:
    def value(task: Any) -> float | None:
        found: float | None = task.figures.get(name)
        return found

    return value
