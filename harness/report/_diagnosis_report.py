"""A re-reflection bank's report (experiment=diagnosis_bank: bank.jsonl and diagnosis.jsonl, no trials.jsonl):
diagnosis.md (the section alone, what the bank prints), report.md and report.html, from its records only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.metrics.diagnosis.summary import DomainDiagnosis, run_diagnosis
from harness.records import TRIALS_FILE
from harness.records.diagnosis_bank import REFLECTIONS_FILE, TABLE_FILE, reflections_log
from harness.records.diagnosis_log import read_diagnosis
from harness.records.whole_file import write_whole
from harness.report._diagnosis_section import diagnosis_section
from harness.report._report import REPORT_FILE
from harness.report._runs import run_names
from harness.report.document import Code, Document, Paragraph, render_markdown
from harness.report.html import document_page, write_page

BANK_COMMAND = "python run.py experiment=diagnosis_bank"


def is_bank_run(run_dir: Path) -> bool:
    """Whether `run_dir` is a re-reflection bank: its reflections, and no trial records."""
    run_dir = Path(run_dir)
    return (run_dir / REFLECTIONS_FILE).is_file() and not (run_dir / TRIALS_FILE).exists()


def bank_diagnosis(run_dir: Path) -> list[DomainDiagnosis] | None:
    """The bank's tables, its sources in the order they reflected; None before its diagnosis was written."""
    found = read_diagnosis(run_dir)
    if found is None:
        return None
    sources = list(dict.fromkeys(r.record.condition for r in reflections_log(Path(run_dir)).read()))
    return run_diagnosis(found, sources)


def bank_table(domains: Sequence[DomainDiagnosis] | None) -> str:
    """The Diagnosis section as markdown: what the bank prints and diagnosis.md holds."""
    return render_markdown(Document("Re-reflection bank", [diagnosis_section(domains, BANK_COMMAND)]))


def write_bank_report(run_dir: Path, out_dir: Path) -> list[Path]:
    """diagnosis.md, report.md and report.html into `out_dir`; the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    domains = bank_diagnosis(run_dir)
    intro = Paragraph("Every reflection source re-diagnosed the same stored failed trajectories (", Code(BANK_COMMAND),
                      "), so each comparison is paired per trajectory; written from the bank's records, nothing rerun.")
    document = Document(f"Re-reflection bank: {run_names([run_dir])[0]}", [intro, diagnosis_section(domains)])
    return [
        write_whole(out_dir / TABLE_FILE, bank_table(domains)),
        write_whole(out_dir / REPORT_FILE, render_markdown(document)),
        write_page(document_page(document), out_dir),
    ]
