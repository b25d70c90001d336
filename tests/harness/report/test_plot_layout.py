"""Every plot fits its content, with one condition or many: no title, label, tick label or legend is cut at the
figure's edge, and none runs into another."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox
from PIL import Image

from harness.metrics.semantic import EmbeddingCache
from harness.records import TrialLog, TrialRecord
from harness.report import write_report
from harness.report.plot_files import PLOT_FILES, SEMANTIC_VS_RRR
from tests.harness.factories import make_record
from tests.harness.fake_embedder import FAKE_MODEL, FakeEmbedder

TASKS = [f"pick_and_place_simple-{name}-None-Desk-308/trial_T{k}" for k, name in enumerate(("Mug", "Pen", "Cup"))]
# The shipped conditions (the five-condition study and the gated one), and one with a long name.
MANY = ["self_diagnosis", "no_memory", "grounded_template", "programmatic", "model_swap", "gated_reflector_longer"]


def records_of(conditions: list[str]) -> list[TrialRecord]:
    """Three tasks per condition, three trials each: repeated and varied reflections, one task solved."""
    records = []
    for condition in conditions:
        for k, task in enumerate(TASKS):
            for trial in range(3):
                solved = k == 2 and trial == 2
                text = None if solved else ("Open the drawer first." if k == 0 else f"Try place {trial} this time.")
                text = None if condition == "no_memory" else text
                records.append(make_record(trial, text, solved, task=task, condition=condition))
    return records


def run_of(tmp_path: Path, conditions: list[str]) -> Path:
    run_dir = tmp_path / f"run-{len(conditions)}"
    log = TrialLog(run_dir)
    for record in records_of(conditions):
        log.append(record)
    return run_dir


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Figure]]:
    """Every figure the report saves, kept for a look at its layout (savefig itself still runs)."""
    figures: list[Figure] = []
    original = Figure.savefig

    def keep(self: Figure, *args: object, **kwargs: object) -> None:
        figures.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    yield figures


def text_boxes(figure: Figure) -> dict[str, Bbox]:
    """Window extents of the figure's title, legends, axis labels and axes (with tick labels), by name."""
    renderer = figure.canvas.get_renderer()
    boxes: dict[str, Bbox] = {}
    if figure._suptitle is not None:
        boxes["title"] = figure._suptitle.get_window_extent(renderer)
    for number, legend in enumerate(figure.legends):
        boxes[f"legend {number}"] = legend.get_window_extent(renderer)
    for axes in figure.axes:
        if axes.get_legend() is not None:
            boxes["axes legend"] = axes.get_legend().get_window_extent(renderer)
        for name, label in (("x label", axes.xaxis.label), ("y label", axes.yaxis.label), ("axes title", axes.title)):
            if label.get_text():
                boxes[name] = label.get_window_extent(renderer)
        boxes["the axes with their tick labels"] = axes.get_tightbbox(renderer)  # the ticks in view only
    return boxes


def assert_fits(figure: Figure) -> None:
    boxes = text_boxes(figure)
    edge = figure.bbox
    for name, box in boxes.items():
        assert edge.x0 <= box.x0 and box.x1 <= edge.x1 and edge.y0 <= box.y0 and box.y1 <= edge.y1, f"{name} is cut"
    separate = [name for name in boxes if not name.startswith("the axes")]
    for k, first in enumerate(separate):
        for second in separate[k + 1 :]:
            assert not boxes[first].overlaps(boxes[second]), f"{first} runs into {second}"
    renderer = figure.canvas.get_renderer()
    for axes in figure.axes:
        for name in separate:
            if name.startswith("legend"):
                assert not boxes[name].overlaps(axes.bbox), f"{name} covers the plot"
        for text in axes.texts:  # counts on bars, notes: inside the plot, not beside it
            box = text.get_window_extent(renderer)
            assert axes.bbox.x0 <= box.x0 and box.x1 <= axes.bbox.x1, f"{text.get_text()!r} lies outside the axes"


def assert_blank_border(png: Path) -> None:
    """Nothing is drawn on the outermost pixels: whatever reached the edge was cut there."""
    pixels = np.asarray(Image.open(png).convert("L"))
    border = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    assert border.min() >= 250, f"{png.name} has content on its edge"


@pytest.mark.parametrize(
    "conditions",
    [["self_diagnosis"], ["self_diagnosis", "no_memory"], MANY[:5], MANY],
    ids=["one", "two, the last without reflections", "five", "six"],
)
def test_every_plot_fits_its_content(tmp_path: Path, drawn: list[Figure], conditions: list[str]) -> None:
    out = tmp_path / "out"
    write_report([run_of(tmp_path, conditions)], out, EmbeddingCache(FakeEmbedder(), FAKE_MODEL), 0.975)
    assert len(drawn) == len(PLOT_FILES) + 1
    for figure in drawn:
        assert_fits(figure)
    for name in (*PLOT_FILES, SEMANTIC_VS_RRR):
        assert_blank_border(out / name)


def test_a_one_condition_figure_is_no_wider_than_its_content_needs(tmp_path: Path, drawn: list[Figure]) -> None:
    write_report([run_of(tmp_path, ["self_diagnosis"])], tmp_path / "one")
    widths = [figure.get_size_inches()[0] for figure in drawn]
    write_report([run_of(tmp_path, MANY)], tmp_path / "six")
    assert max(widths) < min(figure.get_size_inches()[0] for figure in drawn[len(widths) :])


def test_a_condition_named_like_mathtext_or_holding_control_characters_is_drawn_as_its_text(
    tmp_path: Path, drawn: list[Figure]
) -> None:
    """A condition's name is data in the plots too: '$...$' would be mathtext (an unknown command stops the
    drawing), a control character a missing glyph."""
    name = "cost $\\nonexistent$ of\x01 it"
    write_report([run_of(tmp_path, [name, "no_memory"])], tmp_path / "out")
    shown = {text.get_text() for figure in drawn for text in figure.findobj(lambda a: hasattr(a, "get_text"))}
    assert any("cost \\$\\nonexistent\\$ of\\u0001 it" in text for text in shown), sorted(shown)
