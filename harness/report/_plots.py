"""The report's PNG plots, drawn on matplotlib's Agg canvas from figures computed elsewhere.

Figures are built with `matplotlib.figure.Figure` and an explicit `FigureCanvasAgg`, never pyplot,
so drawing needs no display and leaves matplotlib's global backend alone.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from harness.records.whole_file import replacing
from harness.report._combine import ReportCondition
from harness.report._semantic import SemanticCondition
from harness.report._stats import SHARE_MEASURES, Share, percent_bar
from harness.report.document import visible

DPI = 120
RRR_AXIS = "RRR (fraction of later reflections repeating, 0 to 1)"
MARKERS = "osD^vP*X"
_COLORS = colormaps["tab10"]
# A fixed seed: the same records always draw the same picture.
_JITTER_SEED = 0
_FIT_ROUNDS = 5
# Legends go under the axes, this many entries a row: beside the axes they ran into the title of a narrow figure.
_LEGEND_COLUMNS = 4
_FIT_PAD_IN = 0.1


def _figure(conditions: int) -> Figure:
    """A figure to start from: as wide as the conditions' columns need; _save grows it to fit its text."""
    figure = Figure(figsize=(max(6.4, 1.6 * conditions + 3.0), 5.0), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Figure, path: Path) -> Path:
    """Save the figure grown until its title, labels and legends all lie inside it.

    The layout engine shrinks the axes to make room for labels and legends, and puts the title (a figure title,
    so legends beside the axes never run into it) above all of them, but it cannot make a title or a legend wider
    than the figure fit: with one condition the start width is too narrow for them, so the figure is widened.
    """
    for _ in range(_FIT_ROUNDS):
        figure.draw_without_rendering()  # lays the figure out, draws no pixels
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]  # Agg's canvas has one
        content = figure.get_tightbbox(renderer)
        width, height = figure.get_size_inches()
        wider = max(0.0, -content.x0) + max(0.0, content.x1 - width)
        taller = max(0.0, -content.y0) + max(0.0, content.y1 - height)
        if wider <= 0 and taller <= 0:
            break
        figure.set_size_inches(width + wider + _FIT_PAD_IN, height + taller + _FIT_PAD_IN)
    else:
        figure.draw_without_rendering()  # laid out at the last size
    # The layout is done at this size: saving would compute it again (most of a plot's time) to the same positions.
    figure.set_layout_engine("none")
    with replacing(path) as handle:  # savefig given a path would follow a symlink there, or wait on a FIFO
        figure.savefig(handle, format=Path(path).suffix.lstrip("."))
    return path


def _shown(label: str) -> str:
    """A condition's label as plot text: control characters as \\uXXXX (the plot font has no control pictures), and
    '$' literal (matplotlib reads the text between two as mathtext)."""
    escaped = "".join(char if visible(char) == char else f"\\u{ord(char):04x}" for char in label)
    return escaped.replace("$", r"\$")


def _tick_labels(conditions: Sequence[ReportCondition], counts: Sequence[int] | None = None) -> list[str]:
    labels = [textwrap.fill(_shown(c.label), 18, break_long_words=False) for c in conditions]
    return labels if counts is None else [f"{label}\n(n = {n})" for label, n in zip(labels, counts)]


def _frozen_line(axes: Axes, frozen_threshold: float) -> None:
    label = f"frozen threshold (RRR = {frozen_threshold:g})"
    axes.axhline(frozen_threshold, ls="--", lw=1, color="tab:red", label=label)


def plot_rrr_distribution(
    conditions: Sequence[ReportCondition], path: Path, frozen_threshold: float
) -> Path:
    """Box plot with every task's RRR jittered on top, one column per condition; the report's frozen threshold."""
    figure = _figure(len(conditions))
    axes = figure.add_subplot()
    values = [[t.rrr for t in c.tasks if t.rrr is not None] for c in conditions]
    positions = list(range(1, len(conditions) + 1))
    drawn = [(position, rrr) for position, rrr in zip(positions, values) if rrr]
    if drawn:
        axes.boxplot([rrr for _, rrr in drawn], positions=[p for p, _ in drawn], widths=0.5, showfliers=False)
    rng = np.random.default_rng(_JITTER_SEED)
    for position, rrr in zip(positions, values):
        if not rrr:
            note = "no task with\n>= 2 reflections"
            axes.text(position, 0.25, note, ha="center", va="center", fontsize=8, color="grey")
            continue
        jitter = rng.uniform(-0.15, 0.15, len(rrr))
        axes.scatter(position + jitter, rrr, s=24, alpha=0.7, color="tab:blue", zorder=3)
    _frozen_line(axes, frozen_threshold)
    axes.scatter([], [], s=24, alpha=0.7, color="tab:blue", label="one task")
    axes.set_xticks(positions, _tick_labels(conditions, [len(v) for v in values]))
    axes.set_xlim(0.4, len(conditions) + 0.6)
    axes.set_ylim(-0.05, 1.05)
    axes.set_xlabel("condition (n = tasks with at least two reflections, so a defined RRR)")
    axes.set_ylabel(RRR_AXIS)
    figure.suptitle("Reflection repetition rate per task, by condition")
    figure.legend(loc="outside lower center", ncols=2, fontsize=8)
    return _save(figure, path)


def plot_rrr_vs_trials(
    conditions: Sequence[ReportCondition], path: Path, frozen_threshold: float
) -> Path:
    """Each task's RRR against the trials it played; filled when solved, hollow when the budget ran out."""
    figure = _figure(len(conditions))
    axes = figure.add_subplot()
    handles = []
    for k, c in enumerate(conditions):
        color, marker = _COLORS(k % 10), MARKERS[k % len(MARKERS)]
        # Trials are whole numbers: a small sideways shift per condition keeps the conditions' points apart.
        shift = (k - (len(conditions) - 1) / 2) * 0.08
        rated = [t for t in c.tasks if t.rrr is not None]
        for solved in (True, False):
            points = [(t.trials + shift, t.rrr) for t in rated if t.solved == solved]
            axes.scatter(
                [x for x, _ in points],
                [y for _, y in points],
                marker=marker,
                s=36,
                alpha=0.8,
                facecolors=color if solved else "none",
                edgecolors=color,
            )
        label = f"{_shown(c.label)} (n = {len(rated)})"
        handles.append(Line2D([], [], ls="", marker=marker, color=color, label=label))
    _frozen_line(axes, frozen_threshold)
    handles += [
        Line2D([], [], ls="", marker="o", color="grey", label="filled: solved"),
        Line2D([], [], ls="", marker="o", color="grey", markerfacecolor="none", label="hollow: unsolved (all trials)"),
        Line2D([], [], ls="--", lw=1, color="tab:red", label=f"frozen threshold (RRR = {frozen_threshold:g})"),
    ]
    # Whole trials only: the shifts above must not turn into fractional ticks.
    most = max((t.trials for c in conditions for t in c.tasks), default=1)
    axes.set_xlim(0.5, most + 0.5)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(-0.05, 1.05)
    axes.set_xlabel("trials played (count; an unsolved task played every trial of its budget)")
    axes.set_ylabel(RRR_AXIS)
    figure.suptitle("RRR against trials played, per task with at least two reflections")
    figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), _LEGEND_COLUMNS), fontsize=8)
    return _save(figure, path)


def plot_solved_and_mention(
    conditions: Sequence[ReportCondition], shares: Sequence[dict[str, Share]], path: Path
) -> Path:
    """Grouped bars per condition (solved, mention strict, mention normalized) with 95% intervals over tasks."""
    figure = _figure(len(conditions))
    axes = figure.add_subplot()
    width = 0.8 / len(SHARE_MEASURES)
    for m, (key, label) in enumerate(SHARE_MEASURES.items()):
        xs = [k + (m - (len(SHARE_MEASURES) - 1) / 2) * width for k in range(len(conditions))]
        bars = [(x, bar) for x, s in zip(xs, shares) if (bar := percent_bar(s[key])) is not None]
        axes.bar(
            [x for x, _ in bars],
            [height for _, (height, _, _) in bars],
            width,
            yerr=[[minus for _, (_, minus, _) in bars], [plus for _, (_, _, plus) in bars]],
            capsize=3,
            color=_COLORS(m),
            label=label,
        )
        for x, s in zip(xs, shares):
            bar = percent_bar(s[key])
            text = f"{s[key].successes}/{s[key].n}" if bar else "n/a"
            top = bar[0] + bar[2] + 1.5 if bar else 1.5
            axes.text(x, top, text, ha="center", va="bottom", fontsize=7, rotation=90)
    axes.set_xticks(range(len(conditions)), _tick_labels(conditions))
    # Every condition's column, also one whose bars are all n/a (nothing to autoscale to).
    axes.set_xlim(-0.5, len(conditions) - 0.5)
    axes.set_ylim(0, 118)
    axes.set_xlabel("condition (numbers on bars: count / denominator)")
    axes.set_ylabel("share (%)")
    figure.suptitle("Solved tasks and object mention per condition, with 95% intervals over tasks")
    figure.legend(loc="outside lower center", ncols=len(SHARE_MEASURES), fontsize=8)
    return _save(figure, path)


def plot_semantic_vs_rrr(
    conditions: Sequence[SemanticCondition], path: Path, frozen_threshold: float
) -> Path:
    """Each task's semantic RRR against its difflib RRR, one marker per condition; off-diagonal quadrants disagree."""
    figure = _figure(len(conditions))
    axes = figure.add_subplot()
    rng = np.random.default_rng(_JITTER_SEED)
    handles = []
    for k, c in enumerate(conditions):
        color, marker = _COLORS(k % 10), MARKERS[k % len(MARKERS)]
        points = [(t.rrr, t.semantic_rrr) for t in c.tasks if t.rrr is not None and t.semantic_rrr is not None]
        # Rates are fractions of few reflections, so many tasks share a point: jitter keeps them countable.
        jitter = rng.uniform(-0.015, 0.015, (len(points), 2))
        axes.scatter(
            [x + dx for (x, _), (dx, _) in zip(points, jitter)],
            [y + dy for (_, y), (_, dy) in zip(points, jitter)],
            marker=marker,
            s=36,
            alpha=0.7,
            color=color,
        )
        label = f"{_shown(c.label)} (n = {len(points)})"
        handles.append(Line2D([], [], ls="", marker=marker, color=color, label=label))
    axes.plot([0, 1], [0, 1], ls=":", lw=1, color="grey")
    axes.axvline(frozen_threshold, ls="--", lw=1, color="tab:red")
    axes.axhline(frozen_threshold, ls="--", lw=1, color="tab:red")
    handles += [
        Line2D([], [], ls=":", lw=1, color="grey", label="equal rates"),
        Line2D([], [], ls="--", lw=1, color="tab:red", label=f"frozen threshold ({frozen_threshold:g}) of each rule"),
    ]
    axes.set_xlim(-0.05, 1.05)
    axes.set_ylim(-0.05, 1.05)
    axes.set_xlabel("RRR, difflib (fraction of later reflections repeating, 0 to 1)")
    axes.set_ylabel("semantic RRR, cosine of embeddings (0 to 1)")
    # The off-diagonal quadrants are the tasks report.md lists as frozen by one rule only.
    for x, y, text in ((0.25, 0.9, "frozen by semantic RRR only"), (0.75, 0.1, "frozen by RRR only")):
        axes.text(x, y, text, ha="center", va="center", fontsize=8, color="grey")
    figure.suptitle("Semantic RRR against RRR, per task (>= 2 reflections)")
    figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), _LEGEND_COLUMNS), fontsize=8)
    return _save(figure, path)
