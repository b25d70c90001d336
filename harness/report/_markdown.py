"""report.md: the runs, the condition table (harness.report.tables), the combining rule, and the plots."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness.domains.registry import mention_note
from harness.metrics.fisher import PairwiseFisher
from harness.metrics.core import SPEARMAN_CONVENTIONS, SpearmanResult
from harness.report._combine import COMBINING_RULE, ReportCondition
from harness.report._cost_section import cost_lines
from harness.report._fisher_section import fisher_lines
from harness.report._plots import RRR_DISTRIBUTION, RRR_VS_TRIALS, SOLVED_AND_MENTION
from harness.report._runs import RunData
from harness.report._semantic import SemanticReport
from harness.report._semantic_section import semantic_lines
from harness.metrics.run import ConditionReport
from harness.records import describe_outside
from harness.report.tables import conditions_table


def _link(path: Path, out_dir: Path) -> str:
    """The run directory as seen from report.md, so links work wherever the tree is checked out."""
    return Path(os.path.relpath(Path(path).resolve(), Path(out_dir).resolve())).as_posix()


def runs_table(runs: Sequence[RunData], out_dir: Path) -> str:
    lines = ["| run | directory | status | trial budget | conditions | metrics from |", "|---|---|---|---|---|---|"]
    for run in runs:
        conditions = ", ".join(c.condition for c in run.metrics.conditions)
        lines.append(
            f"| {run.name} | [{_link(run.path, out_dir)}]({_link(run.path, out_dir)}) | {run.status or 'no manifest'} "
            f"| {run.metrics.trial_budget} | {conditions} | {run.metrics_source} |"
        )
    return "\n".join(lines)


def outside_plan_lines(runs: Sequence[RunData]) -> list[str]:
    """Each run's records outside its plan, named: no figure of this report counts them."""
    return [f"- {run.name}: {describe_outside(run.outside_plan)}" for run in runs if run.outside_plan]


def combining_paragraph(conditions: Sequence[ReportCondition]) -> str:
    """The rule, and what it did here."""
    pooled = [f"{c.label} pooled from {', '.join(c.runs)}" for c in conditions if len(c.runs) > 1]
    apart = [c.label for c in conditions if c.label != c.condition]
    lines = [COMBINING_RULE]
    if pooled:
        lines.append("Pooled here: " + "; ".join(pooled) + ".")
    if apart:
        lines.append("Kept apart here (models differ): " + "; ".join(apart) + ".")
    return " ".join(lines)


def _spearman(result: SpearmanResult) -> str:
    if result.rho is None or result.p is None:
        return f"undefined (n = {result.n})"
    return f"rho {result.rho:.2f}, p {result.p:.3g} (n = {result.n})"


def spearman_lines(reports: Sequence[ConditionReport]) -> list[str]:
    """Spearman of RRR against trials played per condition, under both conventions."""
    names = list(SPEARMAN_CONVENTIONS.values())
    lines = [f"Spearman of RRR against trials played: [1] over {names[0]}; [2] over {names[1]}.", ""]
    lines += [
        f"- {report.condition}: " + "; ".join(f"[{i}] {_spearman(s)}" for i, s in enumerate(report.spearman, start=1))
        for report in reports
    ]
    return lines


def report_markdown(
    runs: Sequence[RunData],
    conditions: Sequence[ReportCondition],
    table: Sequence[ConditionReport],
    out_dir: Path,
    fisher: Sequence[PairwiseFisher],
    semantic: SemanticReport | None = None,
) -> str:
    """The whole report.md; plots are linked by file name, next to it."""
    lines = [
        f"# Report: {', '.join(run.name for run in runs)}",
        "",
        "Written by `python -m harness.report` from the runs' records; nothing was rerun.",
        "",
        "## Runs",
        "",
        runs_table(runs, out_dir),
        "",
        *([*outside_plan_lines(runs), ""] if any(run.outside_plan for run in runs) else []),
        "## Conditions",
        "",
        conditions_table(table, [n for d in dict.fromkeys(run.domain for run in runs) if (n := mention_note(d))]),
        "",
        combining_paragraph(conditions),
        "",
        "## Plots",
        "",
        f"- [RRR per condition]({RRR_DISTRIBUTION}): every task with a defined RRR, over a box plot.",
        f"- [RRR against trials played]({RRR_VS_TRIALS}): per task, filled when solved.",
        f"- [Solved and object mention]({SOLVED_AND_MENTION}): shares with 95% Wilson intervals.",
        "",
        f"![RRR per condition]({RRR_DISTRIBUTION})",
        "",
        f"![RRR against trials played]({RRR_VS_TRIALS})",
        "",
        *spearman_lines(table),
        "",
        f"![Solved and object mention per condition]({SOLVED_AND_MENTION})",
        "",
        *fisher_lines(fisher),
        "",
        *cost_lines(runs, conditions),
        "",
        *([*semantic_lines(semantic), ""] if semantic else []),
    ]
    return "\n".join(lines)
