"""report.md's document: the runs, the condition table (harness.report.tables), the combining rule, the plots and
the statistics, section by section; rendered to report.md and to the top of report.html.

A section is a function returning a `Section`; `report_document` lists them in order.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness.domains.registry import identity_note, mention_note
from harness.metrics.curves import ThresholdCurves
from harness.metrics.effects import CONTROL, Effects
from harness.metrics.spearman import SPEARMAN_CONVENTIONS, SpearmanResult
from harness.metrics.fisher import PairwiseFisher
from harness.metrics.run import ConditionReport
from harness.records import describe_outside
from harness.report._diagnosis_section import runs_diagnosis_section
from harness.report._combine import COMBINING_RULE, SAME_TASKS, ReportCondition, kept_apart
from harness.report._cost_section import cost_section
from harness.report._effects_section import effects_section, held_out_note
from harness.report._fisher_section import fisher_section
from harness.report._frozen_length_section import frozen_length_section
from harness.report._insights_section import insights_section
from harness.report.plot_files import RRR_DISTRIBUTION, RRR_VS_TRIALS, SOLVED_AND_MENTION
from harness.report._run_on_section import run_on_rows, run_on_section
from harness.report._runs import RunData
from harness.report._semantic import SemanticReport
from harness.report._semantic_section import semantic_section
from harness.report._threshold_section import report_thresholds, threshold_section
from harness.report.document import Block, BulletList, Cell, Code, Document, Figure, Link, Paragraph, Section, Table
from harness.report.tables import conditions_table

RUNS_HEADER = ["run", "directory", "status", "trial budget", "conditions", "metrics from"]
HERE = " (this report's folder)"


def relative_path(path: Path, out_dir: Path) -> str:
    """`path` as seen from the report's folder, so links work wherever the tree is checked out."""
    return Path(os.path.relpath(Path(path).resolve(), Path(out_dir).resolve())).as_posix()


def directory_link(path: Path, out_dir: Path) -> Link:
    """A link to a directory the report read, labelled with its relative path."""
    relative = relative_path(path, out_dir)
    return Link.to_path(relative, relative)


def directory_cell(path: Path, out_dir: Path) -> Cell:
    """A run's directory: a link labelled with its relative path, or, when it is the report's own folder, its name
    as text (a link labelled '.' to the page itself was all but invisible, and went nowhere new)."""
    if relative_path(path, out_dir) == ".":
        return [Code(Path(path).resolve().name), HERE]
    return directory_link(path, out_dir)


def runs_table(runs: Sequence[RunData], out_dir: Path) -> Table:
    rows = [
        [
            run.name,
            directory_cell(run.path, out_dir),
            run.status or "no manifest",
            str(run.metrics.trial_budget),
            ", ".join(c.condition for c in run.metrics.conditions),
            run.metrics_source,
        ]
        for run in runs
    ]
    return Table(RUNS_HEADER, rows)


def runs_section(runs: Sequence[RunData], out_dir: Path) -> Section:
    """The runs, and each run's records outside its plan, named: no figure of this report counts them."""
    blocks: list[Block] = [runs_table(runs, out_dir)]
    outside = [f"{run.name}: {describe_outside(run.outside_plan)}" for run in runs if run.outside_plan]
    if outside:
        blocks.append(BulletList(outside))
    return Section("Runs", blocks)


def combining_paragraph(conditions: Sequence[ReportCondition]) -> Paragraph:
    """The rule, and what it did here: what was pooled, and what was kept apart for which difference."""
    pooled = [f"{c.label} pooled from {', '.join(c.runs)}" for c in conditions if len(c.runs) > 1]
    sentences = [COMBINING_RULE]
    if pooled:
        sentences.append("Pooled here: " + "; ".join(pooled) + ".")
    for differ, parts in kept_apart(conditions).items():
        labels = "; ".join(c.label for c in parts)
        if differ == SAME_TASKS:
            sentences.append(f"Kept apart here (runs of the same tasks, one row per run, not paired): {labels}.")
        else:
            sentences.append(f"Kept apart here ({differ} differ): {labels}.")
    return Paragraph(" ".join(sentences))


def conditions_section(
    runs: Sequence[RunData], conditions: Sequence[ReportCondition], table: Sequence[ConditionReport]
) -> Section:
    domains = list(dict.fromkeys(run.domain for run in runs))
    notes = [n for d in domains if (n := mention_note(d))]
    identity = [n for d in domains if (n := identity_note(d))]
    measured = {c.thresholds for c in conditions}
    # Rows at different thresholds name theirs in their labels; the table then states no one rule for all.
    blocks = conditions_table(table, notes, identity, report_thresholds(runs) if len(measured) <= 1 else None)
    return Section("Conditions", [*blocks, combining_paragraph(conditions)])


def _spearman(result: SpearmanResult) -> str:
    if result.rho is None or result.p is None:
        return f"undefined (n = {result.n})"
    return f"rho {result.rho:.2f}, p {result.p:.3g} (n = {result.n})"


def spearman_blocks(reports: Sequence[ConditionReport]) -> list[Block]:
    """Spearman of RRR against trials played per condition, under both conventions."""
    names = list(SPEARMAN_CONVENTIONS.values())
    items = [
        f"{report.condition}: " + "; ".join(f"[{i}] {_spearman(s)}" for i, s in enumerate(report.spearman, start=1))
        for report in reports
    ]
    return [
        Paragraph(f"Spearman of RRR against trials played: [1] over {names[0]}; [2] over {names[1]}."),
        BulletList(items),
    ]


PLOTS_OFF = "Not drawn: this report was written with its plots off (report.plots=false, reflexion-report --no-plots)."


def plots_section(table: Sequence[ConditionReport], drawn: bool = True) -> Section:
    if not drawn:
        return Section("Plots", [Paragraph(PLOTS_OFF), *spearman_blocks(table)])
    links = BulletList(
        [
            [Link.to_path("RRR per condition", RRR_DISTRIBUTION), ": every task with a defined RRR, over a box plot."],
            [Link.to_path("RRR against trials played", RRR_VS_TRIALS), ": per task, filled when solved."],
            [
                Link.to_path("Solved and object mention", SOLVED_AND_MENTION),
                ": shares with 95% Clopper-Pearson intervals over tasks.",
            ],
        ]
    )
    return Section(
        "Plots",
        [
            links,
            Figure("RRR per condition", RRR_DISTRIBUTION),
            Figure("RRR against trials played", RRR_VS_TRIALS),
            *spearman_blocks(table),
            Figure("Solved and object mention per condition", SOLVED_AND_MENTION),
        ],
    )


def report_title(names: Sequence[str]) -> str:
    """The title naming the runs: by their directories, or as the caller names them (a sweep by its overrides)."""
    return f"Report: {', '.join(names)}"


def report_document(
    runs: Sequence[RunData],
    conditions: Sequence[ReportCondition],
    table: Sequence[ConditionReport],
    out_dir: Path,
    fisher: Sequence[PairwiseFisher],
    semantic: SemanticReport | None = None,
    effects: tuple[Effects | None, str | None] = (None, None),
    curves: Sequence[ThresholdCurves] = (),
    title: str | None = None,
    plots: bool = True,
) -> Document:
    """The whole report; plots are linked by file name, next to it (none with `plots` off). `effects`: the paired
    effects against the control, or None and why there are none (harness.report._effects). `title`: the runs' names
    by default."""
    blocks: list[Block] = [
        Paragraph("Written by ", Code("reflexion-report"), " from the runs' records; nothing was rerun."),
        runs_section(runs, out_dir),
        conditions_section(runs, conditions, table),
        frozen_length_section(runs, conditions),
        run_on_section(run_on_rows(runs)),
        plots_section(table, plots),
        threshold_section(runs, curves, report_thresholds(runs)),
        fisher_section(fisher),
        effects_section(*effects, control=CONTROL, held_out=held_out_note(runs, conditions, CONTROL)),
        runs_diagnosis_section(runs),
        cost_section(runs, conditions),
    ]
    if semantic is not None:
        blocks.append(semantic_section(semantic))
    libraries = insights_section(runs)
    if libraries is not None:  # only runs of memory.scope insights or both have one
        blocks.append(libraries)
    document = Document(title or report_title([run.name for run in runs]), blocks)
    return document if plots else document.without_figures()
