"""What a figure of a condition is: the model the figure catalogue (harness.metrics.figures) declares its entries with.

A figure names its value per task (`task_value`, from the task's metrics), how those values aggregate over tasks
(`aggregate`) and which direction is better. A figure measured from data no other figure reads declares its value per
chain instead (`chain`, a function of one chain's trial records) and how a task's chains pool (`pool`): the run's
metrics measure it from the records into each task's `TaskMetrics.figures`, so metrics.json carries it, and a report
of a run recorded before it existed measures it from that run's records. `per_chain_figure` builds such an entry with
its columns, cell and description; it is the catalogue's extension point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.metrics.core import ConditionMetrics, TaskMetrics
from harness.metrics.task_shares import ConditionTaskShares, condition_task_shares
from harness.metrics.thresholds import Thresholds
from harness.records import TrialRecord

Value = str | int | float | bool | None
Family = Literal["outcome", "repetition", "mention", "identity", "answers", "diagnosis"]
"""What a figure measures; a family's figures share a denominator and stand together in every table."""

Chain = Sequence[TrialRecord]
"""One (task, condition, repeat) of one run, in trial order."""
ChainValue = Callable[[Chain, Thresholds], float | None]
"""A chain's value at the run's thresholds; None where undefined (the chain is then left out of its task's value)."""
TaskChainsValue = Callable[[Sequence[Chain], Thresholds], float | None]
"""A task's value from all of its chains."""
MatchedValue = Callable[[Sequence[Chain], Sequence[Chain], Thresholds], tuple[float, float] | None]
"""A task's (control, condition) values from its chains under both: a comparison matched within the task."""

Pool = Literal["mean", "sum", "min", "max"]
"""How a task's chains (its repeats) pool into the task's value: over the chains where the value is defined."""
Aggregate = Literal["sum", "max", "mean", "share"]
"""How the tasks' values make the condition's: over the tasks where the value is defined (share: of 1-or-0 values)."""

def _mean(values: list[float]) -> float:
    return sum(values) / len(values)  # statistics.mean is exact but slow, and a study pools thousands of chains


POOLS: dict[Pool, Callable[[list[float]], float]] = {"mean": _mean, "sum": sum, "min": min, "max": max}
AGGREGATES: dict[Aggregate, str] = {
    "sum": "sum over tasks",
    "max": "the most of any task",
    "mean": "mean over the tasks where defined",
    "share": "share of the tasks where defined",
}
"""Each aggregation in words (docs/metrics.md's figure table)."""


def _defined(values: Sequence[float | None]) -> list[float]:
    return [value for value in values if value is not None]


def pool(kind: Pool, values: Sequence[float | None]) -> float | None:
    """A task's value from its chains' values; None when no chain has one."""
    defined = _defined(values)
    return float(POOLS[kind](defined)) if defined else None


def aggregate(kind: Aggregate, values: Sequence[float | None]) -> float | None:
    """The condition's value from its tasks' values; None when no task has one."""
    defined = _defined(values)
    if not defined:
        return None
    if kind == "sum":
        return float(sum(defined))
    if kind == "max":
        return float(max(defined))
    return sum(defined) / len(defined)


class Measured:
    """A condition as its figures read it: its totals and its per-task figures (a task's repeats pooled); the
    shares over tasks are computed once, whichever figures ask."""

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
    label: str = Field(description="Its name in report.md's effects table: the estimand, and its selection if any.")
    per_task: str = Field(description="The per-task value in words, for the table's note ({threshold}: RRR's).")
    chain: ChainValue | None = Field(
        None, description="One chain's value; None where undefined, so the chain is left out."
    )
    task: TaskChainsValue | None = Field(
        None, description="The task's value from all its chains; None: the mean of its chains' defined values."
    )
    matched: MatchedValue | None = Field(
        None, description="Both sides' values of a task from its chains under both (instead of `chain`, `task`)."
    )
    selection: str | None = Field(
        None, description="Which tasks the value is defined on when that depends on the outcome; None: every task."
    )
    binary: bool = Field(False, description="1 or 0 per chain: McNemar's exact test while no repeat makes a share.")
    bounds: tuple[float, float] | None = Field(
        (0.0, 1.0), description="The range of a per-task value (a share: 0 to 1); None where unbounded."
    )

    @model_validator(mode="after")
    def _valued(self) -> Paired:
        if (self.chain is None and self.task is None) == (self.matched is None):
            raise ValueError(f"paired measure {self.measure} needs a chain or task value, or a matched one, not both.")
        return self

    def task_value(self, chains: Sequence[Chain], thresholds: Thresholds) -> float | None:
        """The task's value on one side (a measure that is not `matched`)."""
        if self.task is not None:
            return self.task(chains, thresholds)
        assert self.chain is not None, f"{self.measure} is matched: its values come in pairs"
        chain = self.chain
        return pool("mean", [chain(one, thresholds) for one in chains])


class Figure(BaseModel):
    """One figure of a condition, as every output shows it."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = Field(description="One line: what it counts or measures.")
    better: Literal["higher", "lower"] | None = Field(description="Which direction is better; None: neither.")
    family: Family
    per_task: str = Field(description="The value per task, in words.")
    task_value: Callable[[TaskMetrics], float | None] = Field(
        description="The value per task, from the task's metrics (its chains pooled); None where undefined."
    )
    aggregate: Aggregate = Field(description="How the values per task make the condition's (`value`).")
    chain: ChainValue | None = Field(
        None, description="Where the value is measured from each chain's records: the value per chain."
    )
    pool: Pool = Field("mean", description="How a task's chains pool `chain`'s values into the task's value.")
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
    paired: tuple[Paired, ...] = Field((), description="Its paired comparisons with the control; none: not compared.")

    def value(self, measured: Measured) -> float | None:
        """The condition's value: `aggregate` over its tasks' values."""
        return aggregate(self.aggregate, [self.task_value(task) for task in measured.tasks])


def _mean_cell(figure_name: str, aggregate_kind: Aggregate) -> Callable[[Measured], Sequence[str]]:
    def cells(m: Measured) -> list[str]:
        values = _defined([task.figures.get(figure_name) for task in m.tasks])
        value = aggregate(aggregate_kind, values)
        return [f"{'undefined' if value is None else f'{value:.2f}'} ({len(values)})"]

    return cells


def per_chain_figure(
    name: str,
    description: str,
    heading: str | None,
    chain: ChainValue,
    better: Literal["higher", "lower"] | None,
    family: Family,
    per_task: str,
    pool: Pool = "mean",
    aggregate: Aggregate = "mean",
    paired: tuple[Paired, ...] = (),
) -> Figure:
    """A figure measured from each chain's records: one data column (its value) and, with a `heading`, one column of
    report.md's condition table ("value (tasks where defined)"; None: none). The run's metrics measure `chain` on
    every chain, pool a task's chains by `pool` into `TaskMetrics.figures[name]`, and the figure's value is
    `aggregate` over the tasks."""

    def task_value(task: TaskMetrics) -> float | None:
        return task.figures.get(name)

    def values(m: Measured) -> tuple[Value]:
        return (figure.value(m),)

    figure = Figure(
        name=name,
        description=description,
        better=better,
        family=family,
        per_task=per_task,
        task_value=task_value,
        aggregate=aggregate,
        chain=chain,
        pool=pool,
        columns=(name,),
        values=values,
        headings=(heading,) if heading else (),
        cells=_mean_cell(name, aggregate) if heading else None,
        paired=paired,
    )
    return figure


def task_figures(figures: Sequence[Figure], chains: Sequence[Chain], thresholds: Thresholds) -> dict[str, float | None]:
    """A task's values of every figure measured per chain, its chains pooled by each figure's `pool`."""
    return {
        figure.name: pool(figure.pool, [figure.chain(chain, thresholds) for chain in chains])
        for figure in figures
        if figure.chain is not None
    }
