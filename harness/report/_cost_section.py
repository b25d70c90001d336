"""report.md's tokens-and-cost section: each report condition's LLM use from the runs' records, priced by their
manifests."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.cost import UsageTotals
from harness.report.cost_table import usage_table
from harness.report._combine import ReportCondition
from harness.report._runs import RunData
from harness.report.document import Paragraph, Section

TITLE = "Tokens and estimated cost"


def cost_section(runs: Sequence[RunData], conditions: Sequence[ReportCondition]) -> Section:
    """One row per report condition (pooled runs summed), or why there is none."""
    by_name = {run.name: run for run in runs}
    rows = []
    for c in conditions:
        parts = [by_name[name].usage[c.condition] for name in c.runs if c.condition in by_name[name].usage]
        if parts:
            rows.append((c.label, sum(parts, UsageTotals())))
    if not rows:
        return Section(TITLE, [Paragraph("No run has trial records (trials.jsonl), so its LLM use is unknown.")])
    blocks = usage_table(rows, [p for run in runs for p in run.prices.values()])
    unread = [run.name for run in runs if not run.usage]
    if unread:
        blocks.append(Paragraph(f"Not counted, for want of trial records (trials.jsonl): {', '.join(unread)}."))
    return Section(TITLE, blocks)
