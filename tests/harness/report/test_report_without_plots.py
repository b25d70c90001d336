"""A report without its plots (`reflexion-report --no-plots`, `report.plots=false` for a run's own): no PNG drawn or
left from an earlier report, no figure in report.md or report.html, and every table and number as with the plots."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from harness.report import write_report
from harness.report._document import PLOTS_OFF
from harness.report.plot_files import PLOT_FILES
from harness.report.html import HTML_FILE
from tests.in_process import run_module
from tests.runner import run_cli
from tests.small_run import SMALL_RUN

FIGURE_MD = re.compile(r"!\[[^\]]*\]\([^)]*\.png\)")


def pngs(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("*.png"))


def without_plot_text(markdown: str) -> str:
    """report.md less what only the plots change: its figures, the links to them and the "not drawn" sentence."""
    lines = [line for line in markdown.splitlines() if ".png)" not in line and line != PLOTS_OFF]
    return "\n".join(line for line in lines if line.strip())


def test_no_png_is_drawn_or_left_and_the_numbers_are_the_same(
    small_run: Path, copy_run: Callable[[Path], Path], tmp_path: Path
) -> None:
    run = copy_run(small_run)
    write_report([run], run)
    assert set(PLOT_FILES) <= set(pngs(run))
    with_plots = (run / "report.md").read_text()
    assert FIGURE_MD.search(with_plots)

    write_report([run], run, plots=False)
    markdown = (run / "report.md").read_text()
    assert pngs(run) == [], "an earlier report's plot was left beside a report that shows none"
    assert PLOTS_OFF in markdown and not FIGURE_MD.search(markdown)
    assert "<img" not in (run / HTML_FILE).read_text()
    assert without_plot_text(markdown) == without_plot_text(with_plots)


def test_the_command_takes_no_plots(small_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = run_module("harness.cli.report", str(small_run), "--out", str(out), "--html", "--no-plots")
    assert result.returncode == 0, result.stderr
    assert (out / "report.md").is_file() and (out / HTML_FILE).is_file() and pngs(out) == []
    assert PLOTS_OFF in (out / "report.md").read_text()


def test_a_run_with_report_plots_false_draws_none(tmp_path: Path) -> None:
    result = run_cli(*SMALL_RUN, "report.plots=false", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 0, result.stderr
    assert pngs(tmp_path / "run") == [] and PLOTS_OFF in (tmp_path / "run" / "report.md").read_text()


def test_a_plots_value_that_is_no_boolean_is_refused_in_one_sentence(tmp_path: Path) -> None:
    result = run_cli(*SMALL_RUN, "report.plots=sometimes", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "report.plots" in result.stderr
    assert result.stderr.count("\n") == 1 and not (tmp_path / "run").exists()
