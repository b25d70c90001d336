"""Reports of our own runs: per-condition tables and plots read from run directories, several runs combined."""

from typing import Any

from harness.report._combine import COMBINING_RULE, ReportCondition, combine
from harness.report._diagnosis_report import bank_diagnosis, bank_table, is_bank_run, write_bank_report
from harness.report._folder_lock import holding
from harness.report._propagation_report import propagation_study, write_propagation_report
from harness.report._report import REPORT_FILE, REPORT_FORMATS, ReportFormat, write_formats, write_report
from harness.report._runs import ReportInputError, RunData, finished_run, load_runs
from harness.report._stats import Share
from harness.report.plot_files import THRESHOLD_CURVES

__all__ = [
    "COMBINING_RULE",
    "REPORT_FILE",
    "REPORT_FORMATS",
    "ReportFormat",
    "ReportCondition",
    "ReportInputError",
    "RunData",
    "Share",
    "THRESHOLD_CURVES",
    "bank_diagnosis",
    "bank_table",
    "combine",
    "finished_run",
    "holding",
    "is_bank_run",
    "load_runs",
    "propagation_study",
    "write_bank_report",
    "write_formats",
    "write_propagation_report",
    "write_report",
]


def __getattr__(name: str) -> Any:
    """plot_threshold_curves, imported with matplotlib when first asked for (the audit draws with it)."""
    if name == "plot_threshold_curves":
        from harness.report._threshold_plot import plot_threshold_curves

        return plot_threshold_curves
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
