"""write_report: one or more run directories -> report.md and its PNG plots, and report.html (harness.report.html)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.metrics.fisher import pairwise_fisher
from harness.report._combine import as_condition_reports, combine
from harness.report._document import report_document
from harness.report._effects import report_effects, write_effects
from harness.report._plots import (
    RRR_DISTRIBUTION,
    RRR_VS_TRIALS,
    SEMANTIC_VS_RRR,
    SOLVED_AND_MENTION,
    plot_rrr_distribution,
    plot_rrr_vs_trials,
    plot_semantic_vs_rrr,
    plot_solved_and_mention,
)
from harness.report._runs import ReportInputError, load_runs
from harness.report._semantic import semantic_report
from harness.report._stats import condition_shares
from harness.report._threshold_plot import THRESHOLD_CURVES, plot_threshold_curves
from harness.report._threshold_section import condition_curves, report_thresholds
from harness.report.document import Block, render_markdown
from harness.report.html import run_page, write_page
from harness.metrics.semantic import SEMANTIC_THRESHOLD, EmbeddingCache

REPORT_FILE = "report.md"


def write_report(
    run_dirs: Sequence[Path],
    out_dir: Path,
    embeddings: EmbeddingCache | None = None,
    semantic_threshold: float = SEMANTIC_THRESHOLD,
    html: bool = True,
    appendix: Sequence[Block] = (),
) -> Path:
    """Read the runs, combine their conditions, draw the plots and write report.md into `out_dir`; return its path.

    With `embeddings`, semantic RRR at `semantic_threshold` is measured beside RRR (from the runs' trials.jsonl).
    The paired effects against the control go into the document and into effects.json beside report.md.
    With `html`, report.html beside it: the same document, then every task's reflections trial by trial.
    `appendix` (blocks) ends both.
    """
    runs = load_runs(run_dirs)
    conditions = combine(runs)
    if not conditions:
        raise ReportInputError(f"the runs {', '.join(r.name for r in runs)} hold no condition to report.")
    # Semantic RRR reads the records and can refuse them: done before anything is written.
    semantic = None if embeddings is None else semantic_report(runs, conditions, embeddings, semantic_threshold)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_rrr_distribution(conditions, out_dir / RRR_DISTRIBUTION)
    plot_rrr_vs_trials(conditions, out_dir / RRR_VS_TRIALS)
    plot_solved_and_mention(conditions, [condition_shares(c) for c in conditions], out_dir / SOLVED_AND_MENTION)
    if semantic is not None:
        plot_semantic_vs_rrr(semantic.conditions, out_dir / SEMANTIC_VS_RRR)
    curves = condition_curves(runs, conditions, report_thresholds(runs))
    if curves:
        plot_threshold_curves(curves, out_dir / THRESHOLD_CURVES, "Frozen share of tasks per condition")
    table = as_condition_reports(conditions)
    fisher = pairwise_fisher([(c.label, c.totals.solved, c.totals.tasks) for c in conditions])
    effects = report_effects(runs, conditions)
    write_effects(effects[0], out_dir)
    path = out_dir / REPORT_FILE
    document = report_document(runs, conditions, table, out_dir, fisher, semantic, effects, curves).then(appendix)
    path.write_text(render_markdown(document))
    if html:
        write_page(run_page(document, runs, conditions), out_dir)
    return path
