"""The propagation plot: rules carrying the plant after each critique step, one line per build, a panel per gate
setting. Drawn on the Agg canvas as harness/report/_plots.py draws (no pyplot)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from harness.records.propagation import PLANT_KINDS
from harness.reflection.insights.trace import Trace
from harness.report._plots import DPI, MARKERS, _COLORS, _save
# The null (each clean build traced with its seed's off-task markers) is drawn beside the plants, dashed.
_KINDS = (*PLANT_KINDS, "none*")


def plot_carriers(traces: Sequence[Trace], path: Path) -> Path:
    """Carriers after each critique step per build, coloured by plant kind, a marker per seed; the plant's step
    ringed. One panel per gate setting the study built with."""
    gates = sorted({t.gate for t in traces}) or [False]
    figure = Figure(figsize=(max(6.4, 4.8 * len(gates)), 4.8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    panels = list(figure.subplots(1, len(gates), sharey=True, squeeze=False)[0])
    seeds = sorted({t.seed for t in traces})
    for axes, gate in zip(panels, gates):
        for t in (t for t in traces if t.gate == gate):
            colour = _COLORS(_KINDS.index(t.plant) % 10)
            marker = MARKERS[seeds.index(t.seed) % len(MARKERS)]
            steps = list(range(len(t.carriers_by_step)))
            axes.plot(steps, t.carriers_by_step, color=colour, marker=marker, ms=4, lw=1.4, alpha=0.8,
                      ls="--" if t.plant == "none*" else "-")
            if t.plant != "none*" and t.plant_step < len(steps):
                axes.plot([t.plant_step], [t.carriers_by_step[t.plant_step]], marker="o", ms=11, mfc="none",
                          color=colour)
        axes.set_title(f"rule-write gate {'on' if gate else 'off'}", fontsize=9)
        axes.set_xlabel("critique step (0: the first)")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    panels[0].set_ylabel("rules carrying a marker word")
    panels[0].yaxis.set_major_locator(MaxNLocator(integer=True))
    panels[0].set_ylim(bottom=-0.2)
    shown = [kind for kind in _KINDS if any(t.plant == kind for t in traces)]
    handles = [Line2D([], [], color=_COLORS(_KINDS.index(k) % 10), ls="--" if k == "none*" else "-", label=k)
               for k in shown]
    handles += [Line2D([], [], color="grey", marker=MARKERS[i % len(MARKERS)], ls="", label=f"seed {s}")
                for i, s in enumerate(seeds)]
    handles.append(Line2D([], [], color="grey", marker="o", ms=11, mfc="none", ls="", label="the plant's step"))
    figure.suptitle("Rules carrying the plant after each critique step, per build")
    figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 5), fontsize=8)
    return _save(figure, path)
