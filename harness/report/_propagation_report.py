"""A plant-and-trace run's report: its propagation.json (no trials.jsonl) -> report.md, the carriers plot and
report.html, written by `reflexion-report RUN_DIR` and at the end of the run."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from pydantic import ValidationError

from harness.metrics.run import METRICS_FILE
from harness.records import TRIALS_FILE
from harness.records.propagation import PropagationStudy
from harness.records.whole_file import write_whole
from harness.reflection.insights.trace import RESULT_FILE, study_traces
from harness.report.plot_files import CARRIERS_BY_STEP
from harness.report._propagation_section import propagation_document
from harness.report._report import REPORT_FILE
from harness.report._runs import ReportInputError, run_names
from harness.report.document import render_markdown
from harness.report.html import document_page, write_page

PROPAGATION_FORMATS = ("md", "html")


def is_propagation_run(run_dir: Path) -> bool:
    """Whether `run_dir` is a plant-and-trace run: its study record, and no trial records or metrics."""
    run_dir = Path(run_dir)
    held = [(run_dir / name).exists() for name in (TRIALS_FILE, METRICS_FILE)]
    return (run_dir / RESULT_FILE).is_file() and not any(held)


def read_study(run_dir: Path) -> PropagationStudy:
    """The run's propagation.json, or one sentence saying why it cannot be read."""
    path = Path(run_dir) / RESULT_FILE
    try:
        return PropagationStudy.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as error:
        problem = f"{error.error_count()} errors" if isinstance(error, ValidationError) else error.strerror
        raise ReportInputError(
            f"{path} is not a propagation record of this harness ({problem}); run the study again to rewrite it."
        ) from None


def propagation_study(run_dirs: Sequence[Path], formats: Collection[str], semantic: bool) -> PropagationStudy | None:
    """The study when the one run given is a propagation run, None when none is; ReportInputError when one is
    given with other runs or asked for what its report does not hold."""
    found = [d for d in run_dirs if is_propagation_run(Path(d))]
    if not found:
        return None
    if len(run_dirs) > 1:
        raise ReportInputError(f"{found[0]} is a propagation run, reported alone; give it without other runs.")
    other = [f for f in formats if f not in PROPAGATION_FORMATS]
    if other or semantic:
        asked = ", ".join(other) or "--semantic"
        raise ReportInputError(
            f"{found[0]} is a propagation run, whose report is md and html; {asked} is for runs of trials."
        )
    return read_study(found[0])


def write_propagation_report(run_dir: Path, out_dir: Path, study: PropagationStudy,
                             formats: Collection[str] = PROPAGATION_FORMATS) -> list[Path]:
    """report.md and/or report.html with the carriers plot into `out_dir`; the paths written, the document's first."""
    from harness.report._propagation_plot import plot_carriers  # matplotlib, loaded when a plot is drawn

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    traces = study_traces(study)
    plot_carriers(traces, out_dir / CARRIERS_BY_STEP)
    document = propagation_document(study, traces, run_names([run_dir])[0])
    written = []
    if "md" in formats:
        written.append(write_whole(out_dir / REPORT_FILE, render_markdown(document)))
    if "html" in formats:
        written.append(write_page(document_page(document), out_dir))
    return written
