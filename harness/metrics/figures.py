"""The figure catalogue: each figure of a condition declared once, and every output derived from it.

A figure (harness.metrics.figure_model) says its name, a one-line description, its value per task and how the values
aggregate over tasks, which direction is better, the interval it carries, its data columns, how report.md writes it
(its headings and cells), what the index page says of it, and, where it is compared paired over tasks, its value per
chain. report.md's and summary.md's condition table (harness.report.tables), the CSV and LaTeX tables and the
DataFrames (harness.report.data_tables, .frames), metrics.json's `figures` (harness.metrics.run), the MLflow metrics
(harness.run.tracking), the index page's headline figures (harness.report._index_run), the effects
(harness.metrics.effects) and docs/metrics.md's figure table (`catalogue_table`, held to it by a test) all read
CATALOGUE, so they cannot disagree.

A new figure is one entry here. One measured from data no figure reads yet is a `per_chain_figure`: its value per
chain (a function of the chain's trial records and the run's thresholds), how a task's chains pool and how tasks
aggregate; the run measures it into metrics.json, and runs recorded before it are measured from their records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.metrics import figure_text as text
from harness.metrics.chain_values import (
    chain_first_solving_trial,
    chain_rrr,
    chain_silent,
    chain_solved,
    chain_trials_to_win,
    mean_first_solving_trial,
    task_matched_rrr,
)
from harness.metrics.core import ConditionMetrics, TaskMetrics
from harness.metrics.diagnosis.figures import diagnosis_figure_fields
from harness.metrics.figure_model import (
    AGGREGATES,
    Aggregate,
    Chain,
    Family,
    Figure,
    Measured,
    Paired,
    Value,
    per_chain_figure,
    task_figures,
)
from harness.metrics.share_figures import counted_columns, identity_label_figure, mention_figure, share_values
from harness.metrics.thresholds import Thresholds
from harness.records.identity import IDENTITY_LABELS

REPORT_FAMILIES: tuple[Family, ...] = ("outcome", "identity", "mention", "repetition", "answers")
"""report.md's column order: the study's headline measures (task identity, mention) before repetition. The data
tables and effects keep the catalogue's own order, the column order conditions.csv had before the catalogue."""


def _first_solving_headline(m: Measured) -> str:
    value = mean_first_solving_trial(m.tasks)
    if value is None:
        return f"first solving trial {text.UNDEFINED} (none solved)"
    return f"first solving trial {value:.2f} (mean over {m.totals.solved} solved)"


TaskCount = Callable[[TaskMetrics], float | None]
Headline = Callable[[Measured], str | None]


def _count(name: str, description: str, per_task: str, family: Family, read: TaskCount, aggregate: Aggregate = "sum",
           headline: Headline | None = None) -> Figure:  # fmt: skip
    """A count its family's figures are over: one column, no cell of its own in report.md."""

    def values(m: Measured) -> tuple[Value]:
        value = figure.value(m)
        return (None if value is None else int(value),)

    figure = Figure(
        name=name,
        description=description,
        better=None,
        family=family,
        per_task=per_task,
        task_value=read,
        aggregate=aggregate,
        columns=(name,),
        values=values,
        headline=headline,
    )
    return figure


def _identity_reflections(task: TaskMetrics) -> float | None:
    return None if task.identity is None else task.identity.reflections


CATALOGUE: tuple[Figure, ...] = (
    _count("tasks", "Tasks played, each counted once however many repeats.", "1", "outcome", lambda t: 1.0),
    _count(
        "repeats",
        "Most chains (experiment.repeats) of any task; 1 without.",
        "its chains",
        "outcome",
        lambda t: t.repeats,
        "max",
    ),  # fmt: skip
    Figure(
        name="solved",
        description="Tasks won within the trial budget (in some repeat) / tasks; with repeats, the mean share won.",
        better="higher",
        family="outcome",
        per_task="1 when some trial of some chain was won, else 0",
        task_value=lambda t: float(t.solved),
        aggregate="share",
        interval="95% Clopper-Pearson over tasks",
        columns=(*counted_columns("solved"), "solved_share"),
        values=lambda m: (*share_values(m.totals.intervals.solved, None)[:4], m.totals.solved_share),
        headings=("solved / tasks",),
        cells=lambda m: [text.solved(m.totals, m.tasks)],
        headline=lambda m: text.headline_solved(m.totals),
        paired=(
            Paired(
                measure="solved",
                label="solved (share of chains won)",
                per_task="solved: the share of a task's chains won (1 or 0 with one repeat: the condition table's solved "
                "/ tasks; with repeats its chains won, not its some chain won)",
                chain=chain_solved,
                binary=True,
            ),
        ),
    ),
    Figure(
        name="first_solving_trial",
        description="The 0-based trial of a task's first success, mean over solved tasks (undefined, never 0, when "
        "none is solved).",
        better="lower",
        family="outcome",
        per_task="the 0-based trial of its first win (the earliest of its chains); undefined where never won",
        task_value=lambda t: None if t.solved_trial is None else float(t.solved_trial),
        aggregate="mean",
        columns=("first_solving_trial",),
        values=lambda m: (mean_first_solving_trial(m.tasks),),
        headings=("first solving trial, mean (solved tasks)",),
        cells=lambda m: [text.mean_of(mean_first_solving_trial(m.tasks), m.totals.solved)],
        headline=_first_solving_headline,
        paired=(
            Paired(
                measure="first_solving_trial",
                label="first solving trial (tasks solved under both)",
                per_task="the first solving trial (0-based; its mean over the repeats that solved), defined only on "
                "tasks solved under both, a subset the conditions' own success selects",
                chain=chain_first_solving_trial,
                selection="tasks solved under both conditions",
                bounds=None,
            ),
        ),
    ),
    per_chain_figure(
        name="trials_to_win",
        description="Trials failed before a task's first win, or every trial played when none was won; the mean over "
        "all tasks (a restricted mean: unlike the first solving trial it leaves no task out).",
        heading=None,  # compared in the effects; the condition table keeps its columns
        chain=chain_trials_to_win,
        better="lower",
        family="outcome",
        per_task="the trials before its first win, or all its trials when never won (the mean over its chains)",
        paired=(
            Paired(
                measure="trials_to_win",
                label="trials before the first win (every task)",
                per_task="the trials before the first win, all of them when never won (every task counts: the "
                "estimand the first solving trial's selection leaves out)",
                chain=chain_trials_to_win,
                bounds=None,
            ),
        ),
    ),
    Figure(
        name="mean_rrr",
        description="Mean reflection repetition rate over tasks with at least two reflections (undefined, not 0, "
        "without).",
        better="lower",
        family="repetition",
        per_task="its RRR (the mean over its chains where defined); undefined below two reflections",
        task_value=lambda t: t.rrr,
        aggregate="mean",
        columns=("rrr_defined", "mean_rrr"),
        values=lambda m: (m.totals.rrr_defined, m.totals.mean_rrr),
        headings=("average RRR (tasks with RRR)",),
        cells=lambda m: [text.mean_of(m.totals.mean_rrr, m.totals.rrr_defined)],
        paired=(
            Paired(
                measure="rrr",
                label="RRR (tasks failed twice under both)",
                per_task="RRR at similarity {threshold} within each repeat's reflections, defined only on tasks with two "
                "reflections under both (failed twice under both, a subset the conditions' own success selects, and "
                "compared over chains of the lengths each condition left)",
                chain=chain_rrr,
                selection="tasks failed at least twice under both conditions",
            ),
            Paired(
                measure="rrr_matched",
                label="RRR over as many reflections on both sides",
                per_task="RRR at similarity {threshold} over each chain's first L reflections, L the fewest any chain of "
                "the task wrote under either condition (at least 2): repetition compared at equal length, so a "
                "condition that solves sooner, and so writes fewer reflections, is not read as repeating less",
                matched=task_matched_rrr,
                selection="tasks failed at least twice under both conditions, compared over as many reflections",
            ),
        ),
    ),
    Figure(
        name="frozen",
        description="Tasks whose memory is frozen (RRR >= metrics.frozen_threshold) / tasks with a defined RRR.",
        better="lower",
        family="repetition",
        per_task="1 when its RRR is at the frozen threshold or above, else 0; undefined without an RRR",
        task_value=lambda t: None if t.rrr is None else float(t.frozen),
        aggregate="share",
        columns=("frozen", "frozen_share"),
        values=lambda m: (m.totals.frozen, m.totals.frozen_share),
        headings=("frozen ({frozen_rule})",),
        cells=lambda m: [text.frozen(m.totals) + text.silent(m.tasks)],
        headline=lambda m: text.headline_frozen(m.totals),
    ),
    per_chain_figure(
        name="silent",
        description="Chains of two reflections or more, every one blank, per task; the mean over tasks. Such a chain "
        "has no RRR (it neither freezes nor stays fresh): counted here, not as unfrozen.",
        heading=None,  # in the frozen cell, where it was counted as unfrozen
        chain=chain_silent,
        better="lower",
        family="repetition",
        per_task="the share of its chains with two reflections or more that are all blank",
    ),
    _count("reflections", "Reflections written.", "its reflections", "mention", lambda t: t.mentions.reflections),
    mention_figure("strict"),
    mention_figure("normalized"),
    _count(
        "identity_reflections",
        "Reflections with a task-identity label (none without the domain's rule).",
        "its reflections labelled",
        "identity",
        _identity_reflections,
        headline=lambda m: text.headline_identity(m.totals.identity),
    ),
    *(identity_label_figure(label) for label in IDENTITY_LABELS),
    Figure(
        name="malformed",
        description="Answers the grounded_template parser rejected, over all tasks (0 for other sources).",
        better="lower",
        family="answers",
        per_task="its answers the parser rejected",
        task_value=lambda t: t.malformed,
        aggregate="sum",
        columns=("malformed",),
        values=lambda m: (m.totals.malformed,),
        headings=("malformed answers",),
        cells=lambda m: [str(m.totals.malformed)],
    ),
    *(Figure(**fields) for fields in diagnosis_figure_fields()),
)

DATA_COLUMNS: list[str] = [column for figure in CATALOGUE for column in figure.columns]
"""Every figure's data columns, in catalogue order: the condition tables' columns after their labels."""
REPORTED: list[Figure] = sorted(
    (figure for figure in CATALOGUE if figure.headings), key=lambda figure: REPORT_FAMILIES.index(figure.family)
)
"""The figures report.md's condition table shows, in its column order."""
PAIRED: dict[str, Paired] = {paired.measure: paired for figure in CATALOGUE for paired in figure.paired}
"""The figures compared paired over tasks, by measure, in catalogue order."""
PER_CHAIN: list[Figure] = [figure for figure in CATALOGUE if figure.chain is not None]
"""The figures measured from each chain's records into `TaskMetrics.figures`."""


def measured_per_chain(chains: Sequence[Chain], thresholds: Thresholds) -> dict[str, float | None]:
    """One task's values of the figures measured per chain (`PER_CHAIN`), its chains pooled."""
    return task_figures(PER_CHAIN, chains, thresholds)


def figure_values(measured: Measured) -> dict[str, Value]:
    """Every data column's value for one condition."""
    row: dict[str, Value] = {}
    for figure in CATALOGUE:
        values = list(figure.values(measured))
        if len(values) != len(figure.columns):
            raise ValueError(f"figure {figure.name} gave {len(values)} values for {len(figure.columns)} columns.")
        row |= dict(zip(figure.columns, values))
    return row


def condition_figures(totals: ConditionMetrics, tasks: Sequence[TaskMetrics]) -> dict[str, float | None]:
    """Every figure's value for one condition (its `aggregate` over tasks): metrics.json's `figures`."""
    measured = Measured(totals, tasks)
    return {figure.name: figure.value(measured) for figure in CATALOGUE}


def report_headings(frozen_rule: str) -> list[str]:
    return [heading.format(frozen_rule=frozen_rule) for figure in REPORTED for heading in figure.headings]


def report_cells(measured: Measured) -> list[str]:
    return [cell for figure in REPORTED if figure.cells for cell in figure.cells(measured)]


def headlines(measured: Measured) -> list[str]:
    """The index page's phrases for one condition, in catalogue order."""
    return [phrase for figure in CATALOGUE if figure.headline and (phrase := figure.headline(measured)) is not None]


def tracked_values(measured: Measured) -> dict[str, float]:
    """What MLflow logs for one condition: every number among the data columns, and each under its other names;
    undefined ones (an RRR without two reflections, a rate without reflections) are left out, never logged as 0."""
    row = figure_values(measured)
    aliases = {alias: column for figure in CATALOGUE for alias, column in figure.tracked_as.items()}
    named = row | {alias: row[column] for alias, column in aliases.items()}
    return {
        name: float(value)
        for name, value in named.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


def catalogue_table() -> str:
    """docs/metrics.md's figure table, from the catalogue (tests/harness/metrics/test_catalogue.py holds the docs
    to it; paste its failure's table over the old one)."""
    rows = [
        "| figure | what | per task | over tasks | better | interval | columns | paired as |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for figure in CATALOGUE:
        columns = ", ".join(f"`{column}`" for column in figure.columns)
        paired = ", ".join(f"`{paired.measure}`" for paired in figure.paired)
        rows.append(
            f"| `{figure.name}` | {figure.description} | {figure.per_task} | {AGGREGATES[figure.aggregate]} | "
            f"{figure.better or ''} | {figure.interval or ''} | {columns} | {paired} |"
        )
    return "\n".join(rows) + "\n"
