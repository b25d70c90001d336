"""Reports of our own runs: per-condition tables and plots read from run directories, several runs combined."""

from harness.report._combine import COMBINING_RULE, ReportCondition, combine
from harness.report._report import REPORT_FILE, write_report
from harness.report._runs import ReportInputError, RunData, load_runs
from harness.report._stats import Share

__all__ = [
    "COMBINING_RULE",
    "REPORT_FILE",
    "ReportCondition",
    "ReportInputError",
    "RunData",
    "Share",
    "combine",
    "load_runs",
    "write_report",
]
