"""The report's tables as data: named columns and raw values (numbers, booleans, None, text), the figures the
report's own tables format, for CSV and LaTeX (harness.report.table_files) and dataframes (harness.report.frames).

Each interval's bounds are columns of their own (`solved_low`, `solved_high`: Clopper-Pearson over tasks), beside
the share they bound. A share of reflections has two: metrics.json's reflections pooled with Wilson's interval over
reflections (`on_task_rate`, `on_task_low`, `on_task_high`), and the mean over tasks of each task's share with its
interval over tasks that the report's tables show (`on_task_task_mean`, `on_task_task_low`, `on_task_task_high`,
beside `on_task_tasks`, the tasks; harness.metrics.task_shares).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from harness.metrics.core import ConditionMetrics, TaskMetrics
from harness.metrics.effects import Effects
from harness.metrics.figures import DATA_COLUMNS, Measured, Value, figure_values
from harness.metrics.fisher import PairwiseFisher
from harness.records.identity import IDENTITY_LABELS
from harness.report._combine import ReportCondition

Row = dict[str, Value]

CONDITIONS = "conditions"
TASKS = "tasks"
EFFECTS = "effects"
SOLVED_TESTS = "solved_tests"


class DataTable(BaseModel):
    """One table: its file name (without extension), its columns, and one dict per row keyed by them."""

    model_config = ConfigDict(frozen=True)

    name: str
    columns: list[str]
    rows: list[Row]


def _table(name: str, columns: Sequence[str], rows: Sequence[Row]) -> DataTable:
    return DataTable(name=name, columns=list(columns), rows=[{c: row[c] for c in columns} for row in rows])


def totals_row(totals: ConditionMetrics, tasks: Sequence[TaskMetrics]) -> Row:
    """A condition's figures as the catalogue reads them (harness.metrics.figures): counts, rates with their
    bounds (and, for shares of reflections, their bounds over `tasks`, the condition's per-task figures), mean RRR,
    frozen, malformed."""
    return figure_values(Measured(totals, tasks))


TOTALS_COLUMNS = DATA_COLUMNS
CONDITION_COLUMNS = [
    "condition", "actor_model", "reflector_model", "domain", "runs", "similarity_threshold", "frozen_threshold",
    *TOTALS_COLUMNS,
]  # fmt: skip


def conditions_data(conditions: Sequence[ReportCondition]) -> DataTable:
    """One row per condition of the report (pooled over runs as the report pools them), labelled as it is, with the
    thresholds it was measured at."""
    rows = [
        {
            "condition": c.label,
            "actor_model": c.actor_model,
            "reflector_model": c.reflector_model,
            "domain": c.domain,
            "runs": "; ".join(c.runs),
            "similarity_threshold": c.thresholds.similarity_threshold,
            "frozen_threshold": c.thresholds.frozen_threshold,
            **totals_row(c.totals, c.tasks),
        }
        for c in conditions
    ]
    return _table(CONDITIONS, CONDITION_COLUMNS, rows)


def task_row(condition: str, task: TaskMetrics) -> Row:
    identity = task.identity
    return {
        "condition": condition,
        "task": task.task_id,
        "target_object": task.target_object,
        "repeats": task.repeats,
        "trials": task.trials,
        "reflections": task.reflections,
        "rrr": task.rrr,
        "frozen": task.frozen,
        "solved": task.solved,
        "solved_trial": task.solved_trial,
        "solved_share": task.solved_share,
        "mention_strict": task.mentions.strict,
        "mention_normalized": task.mentions.normalized,
        **{label: identity.count(label) if identity else None for label in IDENTITY_LABELS},
        "malformed": task.malformed,
    }


TASK_COLUMNS = [
    "condition", "task", "target_object", "repeats", "trials", "reflections", "rrr", "frozen", "solved",
    "solved_trial", "solved_share", "mention_strict", "mention_normalized", *IDENTITY_LABELS,
    "malformed",
]  # fmt: skip


def tasks_data(conditions: Sequence[ReportCondition]) -> DataTable:
    """One row per (condition, task), in the report's condition order and each condition's task order."""
    return _table(TASKS, TASK_COLUMNS, [task_row(c.label, task) for c in conditions for task in c.tasks])


EFFECT_COLUMNS = [
    "measure", "condition", "control", "n", "dropped", "control_mean", "condition_mean", "difference", "ci_low",
    "ci_high", "test", "gained", "lost", "p", "p_holm", "significant",
]  # fmt: skip


def effects_data(effects: Effects | None) -> DataTable:
    """effects.json's rows (no row when the report has no effects); McNemar's discordant tasks as gained, lost."""
    rows = []
    for row in effects.rows if effects else []:
        assert effects is not None  # a row comes only from effects
        gained, lost = row.discordant if row.discordant is not None else (None, None)
        rows.append(row.model_dump() | {"control": effects.control, "gained": gained, "lost": lost})
    return _table(EFFECTS, EFFECT_COLUMNS, rows)


SOLVED_TEST_COLUMNS = ["condition_a", "condition_b", "solved_a", "n_a", "solved_b", "n_b", "odds_ratio", "p", "p_holm"]


def solved_tests_data(pairs: Sequence[PairwiseFisher]) -> DataTable:
    """Fisher's exact test of solved counts for every pair of conditions, with Holm's p."""
    rows = [
        {"condition_a": pair.a, "condition_b": pair.b, "solved_a": pair.solved_a, "n_a": pair.n_a,
         "solved_b": pair.solved_b, "n_b": pair.n_b, "odds_ratio": pair.test.odds_ratio, "p": pair.test.p,
         "p_holm": pair.p_holm}  # fmt: skip
        for pair in pairs
    ]
    return _table(SOLVED_TESTS, SOLVED_TEST_COLUMNS, rows)
