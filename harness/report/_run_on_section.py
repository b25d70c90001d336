"""Reflections that hit the token limit or ran on past their end, per condition of each run: report.md's table and
the WARNING lines summary.md and report.md share. Rows are per run, not pooled: a server's settings are a run's."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.run_on import WARNING, RunOnCounts, run_on_warning
from harness.report._runs import RunData
from harness.report.document import Block, Paragraph, Section, Strong, Table

TITLE = "Reflection ends"
HEADER = ["condition", "reflector answers", "at the token limit", "ran on past their end", "finish_reason unrecorded"]
NOTE = (
    "At the token limit: the reflector's finish_reason was 'length'. Ran on: the text kept in memory goes on past "
    "the reflection into the prompt's layout (an action or observation, a new room or task, a STATUS or Trial # "
    "line, the next few-shot example, a new question or turn, a second template answer), by the rule of "
    "harness/metrics/run_on.py. Not counted: a metrics.json written before these counts, read without its records."
)

Rows = Sequence[tuple[str, RunOnCounts | None]]


def run_on_rows(runs: Sequence[RunData]) -> list[tuple[str, RunOnCounts | None]]:
    """(label, counts) per condition of each run; the label names the run when the report has several."""
    return [
        (c.condition if len(runs) == 1 else f"{c.condition} ({run.name})", c.run_on)
        for run in runs
        for c in run.metrics.conditions
    ]


def warning_blocks(rows: Rows) -> list[Block]:
    """One WARNING paragraph per condition with any reflection at the limit or run on."""
    sentences = [run_on_warning(condition, counts) for condition, counts in rows if counts is not None]
    return [Paragraph(Strong(WARNING), " ", sentence) for sentence in sentences if sentence]


def _row(condition: str, counts: RunOnCounts | None) -> list[str]:
    if counts is None:
        return [condition, "not counted", "", "", ""]
    return [condition, *(str(n) for n in (counts.reflections, counts.hit_limit, counts.ran_on, counts.limit_unrecorded))]


def run_on_section(rows: Rows) -> Section:
    """The counts per condition (label, counts), what they mean, and the warnings."""
    return Section(TITLE, [*warning_blocks(rows), Table(HEADER, [_row(*row) for row in rows]), Paragraph(NOTE)])
