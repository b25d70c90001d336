"""write_report: one or more run directories -> report.md and its PNG plots, and report.html (harness.report.html)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Literal

from harness.metrics.fisher import pairwise_fisher
from harness.metrics.curves import ThresholdCurves
from harness.records.whole_file import write_whole
from harness.report._combine import ReportCondition, as_condition_reports, combine
from harness.report._document import report_document
from harness.report._effects import report_effects, write_effects
from harness.report.plot_files import (
    PLOT_FILES,
    RRR_DISTRIBUTION,
    RRR_VS_TRIALS,
    SEMANTIC_VS_RRR,
    SOLVED_AND_MENTION,
    THRESHOLD_CURVES,
)
from harness.report._runs import ReportInputError, RunData, load_runs
from harness.report._semantic import SemanticReport, semantic_report
from harness.report._stats import condition_shares
from harness.report._threshold_section import condition_curves, report_thresholds
from harness.report.data_tables import (
    CONDITIONS,
    EFFECTS,
    SOLVED_TESTS,
    TASKS,
    conditions_data,
    effects_data,
    solved_tests_data,
    tasks_data,
)
from harness.report.document import Block, render_markdown
from harness.report.html import HTML_FILE, run_page, write_page
from harness.report.table_files import CSV_SUFFIX, LATEX_SUFFIX, write_csv, write_latex
from harness.metrics.semantic import SEMANTIC_THRESHOLD, EmbeddingCache

REPORT_FILE = "report.md"

ReportFormat = Literal["md", "html", "csv", "latex"]
REPORT_FORMATS: tuple[ReportFormat, ...] = ("md", "html", "csv", "latex")
DOCUMENT_FORMATS: tuple[ReportFormat, ...] = ("md", "html")


def write_report(
    run_dirs: Sequence[Path],
    out_dir: Path,
    embeddings: EmbeddingCache | None = None,
    semantic_threshold: float = SEMANTIC_THRESHOLD,
    html: bool = True,
    appendix: Sequence[Block] = (),
    title: str | None = None,
    runs: Sequence[RunData] | None = None,
    plots: bool = True,
) -> Path:
    """Read the runs, combine their conditions, draw the plots and write report.md into `out_dir`; return its path.

    `runs`, when given, are the runs of `run_dirs` already in memory (a run reporting itself at its end), so
    nothing is read back.

    With `embeddings`, semantic RRR at `semantic_threshold` is measured beside RRR (from the runs' trials.jsonl).
    The paired effects against the control go into the document and into effects.json beside report.md.
    With `html`, report.html beside it: the same document, then every task's reflections trial by trial.
    `appendix` (blocks) ends both; `title` replaces the one naming the runs' directories. With `plots` off, no PNG
    is drawn (nor left from an earlier report) and the document shows none: the tables and numbers are the same.
    """
    formats: tuple[ReportFormat, ...] = ("md", "html") if html else ("md",)
    return write_formats(run_dirs, out_dir, formats, embeddings, semantic_threshold, appendix, title, runs, plots)[0]


def write_formats(
    run_dirs: Sequence[Path],
    out_dir: Path,
    formats: Collection[ReportFormat],
    embeddings: EmbeddingCache | None = None,
    semantic_threshold: float = SEMANTIC_THRESHOLD,
    appendix: Sequence[Block] = (),
    title: str | None = None,
    runs: Sequence[RunData] | None = None,
    plots: bool = True,
) -> list[Path]:
    """The report in each of `formats` (REPORT_FORMATS) into `out_dir`, and effects.json; the paths written, the
    document's first. md: report.md; html: report.html; csv and latex: the condition, per-task, effects and exact
    test tables (harness.report.data_tables), built from the same figures as the document. The plots are drawn
    for md and html unless `plots` is off. `runs` and `plots` as for write_report.

    A folder holds one report: the formats an earlier report left in `out_dir` are written again (held_formats),
    and a plot this report does not draw is removed, so no file of an older report is left beside this one."""
    runs = list(runs) if runs is not None else load_runs(run_dirs)
    formats = [*formats, *(f for f in held_formats(Path(out_dir)) if f not in formats)]
    conditions = combine(runs)
    if not conditions:
        raise ReportInputError(f"the runs {', '.join(r.name for r in runs)} hold no condition to report.")
    thresholds = report_thresholds(runs)
    # Semantic RRR reads the records and can refuse them: done before anything is written.
    semantic = (
        None if embeddings is None else semantic_report(runs, conditions, embeddings, semantic_threshold, thresholds)
    )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    curves = condition_curves(runs, conditions, thresholds)
    documents = [f for f in formats if f in DOCUMENT_FORMATS]
    if documents:
        drawn = _plot(conditions, semantic, curves, thresholds.frozen_threshold, out_dir) if plots else set()
        for name in {*PLOT_FILES, SEMANTIC_VS_RRR} - drawn:  # an earlier report's: this report shows no such plot
            (out_dir / name).unlink(missing_ok=True)
    table = as_condition_reports(conditions)
    fisher = pairwise_fisher([(c.label, c.totals.solved, c.totals.tasks) for c in conditions])
    effects = report_effects(runs, conditions)
    write_effects(effects[0], out_dir)
    written = []
    if documents:
        document = report_document(runs, conditions, table, out_dir, fisher, semantic, effects, curves, title, plots)
        document = document.then(appendix)
        if "md" in formats:
            written.append(write_whole(out_dir / REPORT_FILE, render_markdown(document)))
        if "html" in formats:
            written.append(write_page(run_page(document, runs, conditions), out_dir))
    tables = [conditions_data(conditions), tasks_data(conditions), effects_data(effects[0]), solved_tests_data(fisher)]
    for name, write in (("csv", write_csv), ("latex", write_latex)):
        if name in formats:
            written += [write(t, out_dir) for t in tables]
    return written


def held_formats(out_dir: Path) -> list[ReportFormat]:
    """The formats of which `out_dir` holds a report's file (report.md, report.html, a table's .csv or .tex)."""
    tables = (CONDITIONS, TASKS, EFFECTS, SOLVED_TESTS)
    files: dict[ReportFormat, list[str]] = {
        "md": [REPORT_FILE],
        "html": [HTML_FILE],
        "csv": [f"{table}{CSV_SUFFIX}" for table in tables],
        "latex": [f"{table}{LATEX_SUFFIX}" for table in tables],
    }
    return [name for name, held in files.items() if any((out_dir / file).is_file() for file in held)]


def _plot(
    conditions: Sequence[ReportCondition],
    semantic: SemanticReport | None,
    curves: Sequence[ThresholdCurves],
    frozen_threshold: float,
    out_dir: Path,
) -> set[str]:
    """Draw the plots the report shows into `out_dir`; the names of the files drawn."""
    # matplotlib loads here, when a plot is drawn: a report without plots, and a run's start, never import it.
    from harness.report._plots import (
        plot_rrr_distribution,
        plot_rrr_vs_trials,
        plot_semantic_vs_rrr,
        plot_solved_and_mention,
    )
    from harness.report._threshold_plot import plot_threshold_curves

    plot_rrr_distribution(conditions, out_dir / RRR_DISTRIBUTION, frozen_threshold)
    plot_rrr_vs_trials(conditions, out_dir / RRR_VS_TRIALS, frozen_threshold)
    plot_solved_and_mention(conditions, [condition_shares(c) for c in conditions], out_dir / SOLVED_AND_MENTION)
    drawn = {RRR_DISTRIBUTION, RRR_VS_TRIALS, SOLVED_AND_MENTION}
    if semantic is not None:
        plot_semantic_vs_rrr(semantic.conditions, out_dir / SEMANTIC_VS_RRR, frozen_threshold)
        drawn.add(SEMANTIC_VS_RRR)
    if curves:
        plot_threshold_curves(curves, out_dir / THRESHOLD_CURVES, "Frozen share (tasks with an RRR) per condition")
        drawn.add(THRESHOLD_CURVES)
    return drawn
