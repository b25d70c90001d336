"""The figure catalogue: each figure of a condition declared once, and every output derived from it.

A figure says its name, a one-line description, which direction is better, the interval it carries, how it is read
from a condition's metrics (its data columns), how report.md writes it (its headings and cells), what the index page
says of it, and, where it is compared paired over tasks, its per-task value. report.md's and summary.md's condition
table (harness.report.tables), the CSV and LaTeX tables and the DataFrames (harness.report.data_tables, .frames), the
MLflow metrics (harness.run.tracking), the index page's headline figures (harness.report._index_run) and the
effects (harness.metrics.effects) all read CATALOGUE, so they cannot disagree: a new figure is one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics import figure_text as text
from harness.metrics.diagnosis.figures import diagnosis_figure_fields
from harness.metrics.core import SIMILARITY_THRESHOLD, ConditionMetrics, TaskMetrics, reflection_repetition_rate
from harness.metrics.identity import LabelShare
from harness.metrics.intervals import Share
from harness.metrics.task_shares import ConditionTaskShares, TaskShare, condition_task_shares
from harness.records import TrialRecord
from harness.records.identity import IDENTITY_LABELS

Value = str | int | float | bool | None
Family = Literal["outcome", "repetition", "mention", "identity", "answers", "diagnosis"]
"""What a figure measures; a family's figures share a denominator and stand together in every table."""
REPORT_FAMILIES: tuple[Family, ...] = ("outcome", "identity", "mention", "repetition", "answers")
"""report.md's column order: the study's headline measures (task identity, mention) before repetition. The data
tables and effects keep the catalogue's own order, the column order conditions.csv had before the catalogue."""

Chain = Sequence[TrialRecord]
"""One (task, condition, repeat) of one run, in trial order."""


class Measured:
    """A condition as its figures read it: its totals and its per-task figures (a task's repeats pooled); the
    shares over tasks are bootstrapped once, whichever figures ask."""

    def __init__(self, totals: ConditionMetrics, tasks: Sequence[TaskMetrics]) -> None:
        self.totals = totals
        self.tasks = tasks

    @cached_property
    def shares(self) -> ConditionTaskShares:
        return condition_task_shares(self.tasks)


class Paired(BaseModel):
    """How a figure is compared with the control, paired over tasks (harness.metrics.effects)."""

    model_config = ConfigDict(frozen=True)

    measure: str = Field(description="Its name in effects.json and effects.csv.")
    label: str = Field(description="Its name in report.md's effects table.")
    per_task: str = Field(description="The per-task value in words, for the table's note ({threshold}: RRR's).")
    chain: Callable[[Chain, float], float | None] = Field(
        description="One chain's value (at the similarity threshold); None where undefined, so the task is dropped."
    )
    binary: bool = Field(False, description="1 or 0 per chain: McNemar's exact test while no repeat makes a share.")


class Figure(BaseModel):
    """One figure of a condition, as every output shows it."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = Field(description="One line: what it counts or measures.")
    better: Literal["higher", "lower"] | None = Field(description="Which direction is better; None: neither.")
    family: Family
    interval: str | None = Field(None, description="The interval its columns carry, in words; None without one.")
    columns: tuple[str, ...] = Field(description="Its data columns (CSV, LaTeX, DataFrame, MLflow), in order.")
    values: Callable[[Measured], Sequence[Value]] = Field(description="The values of `columns`, raw.")
    headings: tuple[str, ...] = Field((), description="Its report.md columns ({frozen_rule}: the frozen rule).")
    cells: Callable[[Measured], Sequence[str]] | None = Field(None, description="The text of `headings`' cells.")
    headline: Callable[[Measured], str | None] | None = Field(
        None, description="Its phrase in the index page's headline figures; None: not a headline figure."
    )
    tracked_as: Mapping[str, str] = Field(
        default_factory=dict, description="Other names MLflow also logs a column under (alias: column)."
    )
    paired: Paired | None = Field(None, description="Its paired comparison with the control; None: not compared.")


def _wilson(prefix: str) -> tuple[str, ...]:
    """A count's columns: the count, its rate, and the rate's 95% Wilson bounds."""
    return (prefix, f"{prefix}_rate", f"{prefix}_low", f"{prefix}_high")


def _over_tasks(prefix: str) -> tuple[str, ...]:
    """A share of reflections' columns over tasks: the tasks resampled, and its interval's bounds."""
    return (f"{prefix}_tasks", f"{prefix}_task_low", f"{prefix}_task_high")


def _share_values(wilson: Share | LabelShare | None, over_tasks: TaskShare | None) -> tuple[Value, ...]:
    """A share's Wilson columns (`_wilson`), then its columns over tasks (`_over_tasks`); None where not measured."""
    counted: tuple[Value, ...] = (None,) * 4
    if wilson is not None:
        count = wilson.count if isinstance(wilson, LabelShare) else wilson.successes
        counted = (count, wilson.share, wilson.low, wilson.high)
    tasks = (None,) * 3 if over_tasks is None else (over_tasks.tasks, over_tasks.low, over_tasks.high)
    return (*counted, *tasks)


def chain_solved(chain: Chain, _: float = SIMILARITY_THRESHOLD) -> float:
    return 1.0 if any(r.success for r in chain) else 0.0


def chain_rrr(chain: Chain, threshold: float = SIMILARITY_THRESHOLD) -> float | None:
    return reflection_repetition_rate([r.reflection for r in chain if r.reflection is not None], threshold)


def chain_on_task_rate(chain: Chain, _: float = SIMILARITY_THRESHOLD) -> float | None:
    labels = [r.reflection_identity.label for r in chain if r.reflection is not None and r.reflection_identity]
    return labels.count("on_task") / len(labels) if labels else None


def mean_first_solving_trial(tasks: Sequence[TaskMetrics]) -> float | None:
    """Mean over the solved tasks of each one's first solving trial (0-based; with repeats, the earliest of its
    chains, as the RRR grid's S@t); None, never 0, when no task is solved."""
    won = [task.solved_trial for task in tasks if task.solved_trial is not None]
    return sum(won) / len(won) if won else None


def chain_first_solving_trial(chain: Chain, _: float = SIMILARITY_THRESHOLD) -> float | None:
    return next((float(r.trial) for r in chain if r.success), None)


def _first_solving_headline(m: Measured) -> str:
    value = mean_first_solving_trial(m.tasks)
    if value is None:
        return f"first solving trial {text.UNDEFINED} (none solved)"
    return f"first solving trial {value:.2f} (mean over {m.totals.solved} solved)"


def _identity_label(label: str) -> Figure:
    def values(m: Measured) -> tuple[Value, ...]:
        identity, shares = m.totals.identity, m.shares.identity
        return _share_values(getattr(identity, label) if identity else None, shares[label] if shares else None)

    return Figure(
        name=label,
        description=f"Reflections labelled {label} by the domain's task-identity rule / reflections labelled.",
        better="higher" if label == "on_task" else "lower",
        family="identity",
        interval="95% Wilson over reflections; bootstrap resampling tasks",
        columns=(*_wilson(label), *_over_tasks(label)),
        values=values,
        headings=(label.replace("_", " "),),
        cells=lambda m: [text.task_share(m.shares.identity[label] if m.shares.identity else None)],
        tracked_as={f"identity_{label}": label, f"identity_{label}_share": f"{label}_rate"},
        paired=Paired(
            measure="on_task_rate",
            label="on-task identity rate",
            per_task="the on-task identity rate (share of labelled reflections labelled on_task)",
            chain=chain_on_task_rate,
        )
        if label == "on_task"
        else None,
    )


def _mention(rule: Literal["strict", "normalized"]) -> Figure:
    name = f"mention_{rule}"
    return Figure(
        name=name,
        description=f"Reflections naming the task's object by the domain's {rule} rule / reflections written.",
        better="higher",
        family="mention",
        interval="95% Wilson over reflections; bootstrap resampling tasks",
        columns=(*_wilson(name), *_over_tasks(name)),
        values=lambda m: _share_values(getattr(m.totals.intervals, rule), getattr(m.shares, rule)),
        headings=(f"object mention, {rule}",),
        cells=lambda m: [text.task_share(getattr(m.shares, rule))],
    )


def _reflections(totals: ConditionMetrics) -> int:
    return totals.mentions.reflections


def _count(
    name: str,
    description: str,
    family: Family,
    read: Callable[[ConditionMetrics], int | None],
    headline: Callable[[Measured], str | None] | None = None,
) -> Figure:
    """A count its family's figures are over: one column, no cell of its own in report.md."""
    return Figure(
        name=name,
        description=description,
        better=None,
        family=family,
        columns=(name,),
        values=lambda m: (read(m.totals),),
        headline=headline,
    )


CATALOGUE: tuple[Figure, ...] = (
    _count("tasks", "Tasks played, each counted once however many repeats.", "outcome", lambda t: t.tasks),
    _count("repeats", "Most chains (experiment.repeats) of any task; 1 without.", "outcome", lambda t: t.repeats),
    Figure(
        name="solved",
        description="Tasks won within the trial budget (in some repeat) / tasks; with repeats, the mean share won.",
        better="higher",
        family="outcome",
        interval="95% Wilson over tasks",
        columns=(*_wilson("solved"), "solved_share"),
        values=lambda m: (*_share_values(m.totals.intervals.solved, None)[:4], m.totals.solved_share),
        headings=("solved / tasks",),
        cells=lambda m: [text.solved(m.totals, m.tasks)],
        headline=lambda m: text.headline_solved(m.totals),
        paired=Paired(
            measure="solved",
            label="solved",
            per_task="solved (1 or 0, or the share of repeats solved)",
            chain=chain_solved,
            binary=True,
        ),
    ),
    Figure(
        name="first_solving_trial",
        description="The 0-based trial of a task's first success, mean over solved tasks (undefined, never 0, when "
        "none is solved).",
        better="lower",
        family="outcome",
        columns=("first_solving_trial",),
        values=lambda m: (mean_first_solving_trial(m.tasks),),
        headings=("first solving trial, mean (solved tasks)",),
        cells=lambda m: [text.mean_of(mean_first_solving_trial(m.tasks), m.totals.solved)],
        headline=_first_solving_headline,
        paired=Paired(
            measure="first_solving_trial",
            label="first solving trial",
            per_task="the first solving trial (0-based, defined where solved; its mean over the repeats that solved)",
            chain=chain_first_solving_trial,
        ),
    ),
    Figure(
        name="mean_rrr",
        description="Mean reflection repetition rate over tasks with at least two reflections (undefined, not 0, "
        "without).",
        better="lower",
        family="repetition",
        columns=("rrr_defined", "mean_rrr"),
        values=lambda m: (m.totals.rrr_defined, m.totals.mean_rrr),
        headings=("average RRR (tasks with RRR)",),
        cells=lambda m: [text.mean_of(m.totals.mean_rrr, m.totals.rrr_defined)],
        paired=Paired(
            measure="rrr",
            label="RRR",
            per_task="RRR at similarity {threshold} within each repeat's reflections",
            chain=chain_rrr,
        ),
    ),
    Figure(
        name="frozen",
        description="Tasks whose memory is frozen (RRR >= metrics.frozen_threshold) / tasks with a defined RRR.",
        better="lower",
        family="repetition",
        columns=("frozen", "frozen_share"),
        values=lambda m: (m.totals.frozen, m.totals.frozen_share),
        headings=("frozen ({frozen_rule})",),
        cells=lambda m: [text.frozen(m.totals)],
        headline=lambda m: text.headline_frozen(m.totals),
    ),
    _count("reflections", "Reflections written (object mention's denominator).", "mention", _reflections),
    _mention("strict"),
    _mention("normalized"),
    _count(
        "identity_reflections",
        "Reflections with a task-identity label, the labels' denominator (none without the domain's rule).",
        "identity",
        lambda t: t.identity.reflections if t.identity else None,
        headline=lambda m: text.headline_identity(m.totals.identity),
    ),
    *(_identity_label(label) for label in IDENTITY_LABELS),
    Figure(
        name="malformed",
        description="Answers the grounded_template parser rejected, over all tasks (0 for other sources).",
        better="lower",
        family="answers",
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
PAIRED: dict[str, Paired] = {figure.paired.measure: figure.paired for figure in CATALOGUE if figure.paired}
"""The figures compared paired over tasks, by measure, in catalogue order."""


def figure_values(measured: Measured) -> dict[str, Value]:
    """Every data column's value for one condition."""
    row: dict[str, Value] = {}
    for figure in CATALOGUE:
        values = list(figure.values(measured))
        if len(values) != len(figure.columns):
            raise ValueError(f"figure {figure.name} gave {len(values)} values for {len(figure.columns)} columns.")
        row |= dict(zip(figure.columns, values))
    return row


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
