"""How several runs become one report: same-named conditions are pooled when their domain, models, thresholds and
repeats match and no task is in more than one of them.

A sweep writes one condition per job, and a condition may be run more than once. Pooling runs made with other
models or in another domain would mix two experiments, pooling runs measured at other thresholds would add tasks
frozen by two rules into one count under one rule's name, and pooling runs of the same tasks would count a task twice
in one denominator, so such a condition is kept apart, one row per run, each labelled with the run(s) it comes from.
Runs at other thresholds are kept apart rather than measured again at one: each run's figures stay the ones its own
summary, metrics.json and threshold settings give (a run read from metrics.json alone could not be measured again),
as the effects refuse to pair them (harness.report._effects); the labels name each row's thresholds. Runs of other
`experiment.repeats` are kept apart too: a task solved in some of 3 chains (pass@3) and one solved in its only chain
(pass@1) are different events, and one share over both would mean neither.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import ConditionMetrics, TaskMetrics, condition_metrics
from harness.metrics.repeats import spearman_pairs
from harness.metrics.spearman import SPEARMAN_CONVENTIONS, spearman_rrr_vs_trials
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds
from harness.report._runs import RunData
from harness.metrics.run import ConditionReport

COMBINING_RULE = (
    "Conditions with the same name from different runs are pooled (their tasks counted together) when they ran in "
    "the same domain with the same actor and reflector models, were measured at the same thresholds "
    "(metrics.similarity_threshold, metrics.frozen_threshold), played the same number of repeats "
    "(experiment.repeats) and have no task in more than one run; otherwise each "
    "is kept apart and labelled with the run(s) it comes from, so no task counts twice in one row and no row counts "
    "by two rules."
)


class ReportCondition(BaseModel):
    """One row of the report: a condition, possibly pooled over several runs."""

    model_config = ConfigDict(frozen=True)

    label: str = Field(description="The condition name, plus its runs in brackets when kept apart.")
    condition: str = Field(description="The condition name the records carry.")
    actor_model: str
    reflector_model: str
    domain: str | None = Field(description="The domain its runs played; None when unknown.")
    thresholds: Thresholds = Field(DEFAULT_THRESHOLDS, description="The thresholds its runs were measured at.")
    runs: list[str] = Field(description="Names of the runs its tasks come from, in report order.")
    totals: ConditionMetrics = Field(description="Aggregated over `tasks`.")
    tasks: list[TaskMetrics] = Field(description="Per task, run by run; each task once (combine keeps repeats apart).")
    same_tasks: bool = Field(
        False, description="Kept apart from a part of the same domain and models because they share tasks."
    )


def combine(runs: Sequence[RunData]) -> list[ReportCondition]:
    """The report's conditions, in order of first appearance over the runs."""
    groups: dict[tuple[str, str, str, str | None, Thresholds, int], list[tuple[str, ConditionReport]]] = {}
    for run in runs:
        for report in run.metrics.conditions:
            thresholds = run.metrics.thresholds
            key = (report.condition, report.actor_model, report.reflector_model, run.domain, thresholds, _repeats(report))
            groups.setdefault(key, []).append((run.name, report))
    rows = []
    for key, parts in groups.items():
        pools = _without_shared_tasks(parts)
        rows += [(key, pool, len(pools) > 1) for pool in pools]
    model_sets = Counter(key[0] for key, _, _ in rows)
    several_thresholds = len({key[4] for key, _, _ in rows}) > 1
    # Parts of a condition kept apart sit next to each other, in order of the condition's first appearance.
    order = list(dict.fromkeys(key[0] for key, _, _ in rows))
    combined = []
    for (condition, actor, reflector, domain, thresholds, _), parts, same_tasks in sorted(
        rows, key=lambda row: order.index(row[0][0])
    ):
        names = [name for name, _ in parts]
        tasks = [task for _, report in parts for task in report.tasks]
        combined.append(
            ReportCondition(
                label=_label(condition, names if model_sets[condition] > 1 else [], thresholds, several_thresholds),
                condition=condition,
                actor_model=actor,
                reflector_model=reflector,
                domain=domain,
                thresholds=thresholds,
                runs=names,
                # A diagnosis row is one run's (pooled rows: the Diagnosis section reads every run's records).
                totals=condition_metrics(tasks).model_copy(
                    update={"diagnosis": parts[0][1].totals.diagnosis if len(parts) == 1 else None}
                ),
                tasks=tasks,
                same_tasks=same_tasks,
            )
        )
    return combined


def _repeats(report: ConditionReport) -> int:
    """The run's repeats as its tasks played them: the most chains of any task (a resumed run may be short of some)."""
    return report.totals.repeats


def _label(condition: str, runs: list[str], thresholds: Thresholds, several_thresholds: bool) -> str:
    """The condition's name; in brackets its runs when it has more than one row, and its thresholds when the
    report's rows were measured at more than one set: "self_diagnosis (b; ratio >= 0.3, RRR >= 0.2)"."""
    said = [" + ".join(runs)] if runs else []
    if several_thresholds:
        said.append(f"{thresholds.repeat_rule}, {thresholds.frozen_rule}")
    return f"{condition} ({'; '.join(said)})" if said else condition


def _without_shared_tasks(
    parts: list[tuple[str, ConditionReport]],
) -> list[list[tuple[str, ConditionReport]]]:
    """`parts` as one pool when no task is in two of them, else one part per row: a task never counts twice."""
    tasks = [task.task_id for _, report in parts for task in report.tasks]
    if len(tasks) == len(set(tasks)):
        return [parts]
    return [[part] for part in parts]


SAME_TASKS = "the same tasks"


def kept_apart(conditions: Sequence[ReportCondition]) -> dict[str, list[ReportCondition]]:
    """Why same-named conditions were kept apart ("domains", "models", "thresholds", "repeats", or several joined by
    "and", differ; or SAME_TASKS: runs of the same domain, models and thresholds that share tasks), each with its
    parts, in report order: only what really differs between the parts is named."""
    parts: dict[str, list[ReportCondition]] = {}
    for c in conditions:
        parts.setdefault(c.condition, []).append(c)
    reasons: dict[str, list[ReportCondition]] = {}
    for same_name in parts.values():
        if len(same_name) < 2:
            continue
        repeats = [c for c in same_name if c.same_tasks]
        if repeats:
            reasons.setdefault(SAME_TASKS, []).extend(repeats)
        differ = [
            what
            for what, values in (
                ("domains", {c.domain for c in same_name}),
                ("models", {(c.actor_model, c.reflector_model) for c in same_name}),
                ("thresholds", {c.thresholds for c in same_name}),
                ("repeats", {c.totals.repeats for c in same_name}),
            )
            if len(values) > 1
        ]
        if differ:
            reasons.setdefault(" and ".join(differ), []).extend(same_name)
    return reasons


def as_condition_reports(conditions: Sequence[ReportCondition]) -> list[ConditionReport]:
    """The combined conditions in the shape harness.report.tables draws, each named by its label."""
    reports = []
    for c in conditions:
        pairs = spearman_pairs(c.tasks)
        reports.append(
            ConditionReport(
                condition=c.label,
                actor_model=c.actor_model,
                reflector_model=c.reflector_model,
                totals=c.totals.model_copy(update={"condition": c.label}),
                spearman=[spearman_rrr_vs_trials(pairs, convention) for convention in SPEARMAN_CONVENTIONS],
                tasks=c.tasks,
            )
        )
    return reports
