"""The threshold-curve plot: the frozen share of tasks as the similarity threshold and the frozen threshold move,
one line per condition (or per published log), the set thresholds marked. Drawn on the Agg canvas as
harness/report/_plots.py draws (no pyplot)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from harness.metrics.curves import CurvePoint, ThresholdCurves
from harness.report._plots import DPI, MARKERS, _COLORS, _save, _shown


def _shares(points: Sequence[CurvePoint]) -> list[float]:
    return [float("nan") if p.frozen_share is None else p.frozen_share for p in points]


def plot_threshold_curves(curves: Sequence[ThresholdCurves], path: Path, title: str) -> Path:
    """Two panels side by side, the frozen share (0 to 1) against each threshold; a dashed line at the set value."""
    # As wide as its lines' legend needs to start with; _save grows it to fit its text.
    figure = Figure(figsize=(max(8.0, 6.4 + 0.8 * len(curves)), 4.8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    by_similarity, by_frozen = figure.subplots(1, 2, sharey=True)
    for k, curve in enumerate(curves):
        style = {"color": _COLORS(k % 10), "marker": MARKERS[k % len(MARKERS)], "ms": 4, "lw": 1.4}
        label = f"{_shown(curve.label)} (n = {curve.tasks})"
        by_similarity.plot([p.similarity_threshold for p in curve.similarity], _shares(curve.similarity), **style)
        by_frozen.plot([p.frozen_threshold for p in curve.frozen], _shares(curve.frozen), label=label, **style)
    if curves:
        thresholds = curves[0].thresholds
        by_similarity.axvline(thresholds.similarity_threshold, ls="--", lw=1, color="tab:red")
        by_frozen.axvline(thresholds.frozen_threshold, ls="--", lw=1, color="tab:red", label="the set threshold")
        by_similarity.set_title(f"similarity threshold moving (frozen: {thresholds.frozen_rule})", fontsize=9)
        by_frozen.set_title(f"frozen threshold moving (repeat: {thresholds.repeat_rule})", fontsize=9)
    by_similarity.set_xlabel("similarity threshold (ratio)")
    by_frozen.set_xlabel("frozen threshold (RRR)")
    by_similarity.set_ylabel("frozen share of tasks with an RRR (0 to 1)")
    by_similarity.set_ylim(-0.03, 1.03)
    figure.suptitle(_shown(title))
    # Long labels (a published log's path) two a row, so the legend does not widen the figure.
    columns = 2 if any(len(curve.label) > 40 for curve in curves) else 4
    figure.legend(loc="outside lower center", ncols=min(len(curves) + 1, columns), fontsize=8)
    return _save(figure, path)
