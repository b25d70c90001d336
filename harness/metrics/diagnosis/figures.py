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
    """Each catalogued measure as the fields of one `harness.metrics.figures.Figure` (family "diagnosis")."""
    described = {m.name: m for m in MEASURES}
    return [
        {
            "name": f"diagnosis_{name}",
            "description": f"Diagnosis, {described[name].heading}: {described[name].description} (Reflections "
            "scoring 1 / reflections where defined, diagnosis.jsonl.)",
            "better": described[name].better,
            "family": "diagnosis",
            "interval": "bootstrap resampling tasks",
            "columns": tuple(f"diagnosis_{name}{part}" for part in ("", "_n", "_rate", "_task_low", "_task_high")),
            "values": _values(name),
            "headline": _headline if name == "exact" else None,
        }
        for name in CATALOGUED
    ]
