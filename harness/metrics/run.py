"""A run's metrics per condition, from its records: what metrics.json holds and the tables show."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, computed_field

from harness.metrics.core import (
    ConditionMetrics,
    MentionCounts,
    TaskMetrics,
    condition_metrics,
    task_metrics,
)
from harness.metrics.chain_values import mean_first_solving_trial
from harness.metrics.figures import condition_figures, measured_per_chain
from harness.metrics.fisher import PairwiseFisher, pairwise_fisher
from harness.metrics.spearman import SPEARMAN_CONVENTIONS, SpearmanResult, spearman_rrr_vs_trials
from harness.metrics.identity import IdentityCounts, identity_counts
from harness.metrics.repeats import pool_repeats, spearman_pairs
from harness.metrics.run_on import RunOnCounts, run_on_counts
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds
from harness.records import OutsidePlan, RunPlan, TrialRecord, split_by_plan
from harness.records.identity import ReflectionIdentity
from harness.records.whole_file import write_whole

METRICS_FILE = "metrics.json"


class ConditionReport(BaseModel):
    """Everything measured under one condition."""

    model_config = ConfigDict(frozen=True)

    condition: str
    actor_model: str
    reflector_model: str
    totals: ConditionMetrics = Field(description="Counts with their denominators.")
    spearman: list[SpearmanResult] = Field(description="RRR vs trials played, under each convention.")
    tasks: list[TaskMetrics] = Field(description="Per task, in task order.")
    run_on: RunOnCounts | None = Field(
        None,
        description="Reflections that hit the token limit or ran on past their end, over every repeat "
        "(harness.metrics.run_on); None in a metrics.json written before they were counted.",
    )

    @computed_field(  # type: ignore[prop-decorator]  # pydantic's documented form over a property
        description="Mean over solved tasks of the 0-based trial of each one's first success (the figure catalogue's "
        "first_solving_trial); None, never 0, when none is solved. From `tasks`, so an older metrics.json reads it."
    )
    @property
    def first_solving_trial(self) -> float | None:
        return mean_first_solving_trial(self.tasks)

    @computed_field(  # type: ignore[prop-decorator]  # pydantic's documented form over a property
        description="Every figure of the catalogue (harness.metrics.figures) by name: its value per task aggregated "
        "over tasks as the catalogue declares. From `totals` and `tasks`, so an older metrics.json reads it (a "
        "figure measured per chain is None there when the file was written before it existed)."
    )
    @property
    def figures(self) -> dict[str, float | None]:
        return condition_figures(self.totals, self.tasks)


class RunMetrics(BaseModel):
    """metrics.json: one report per condition, in the run's condition order."""

    model_config = ConfigDict(frozen=True)

    trial_budget: int = Field(ge=1, description="Trials per task in the run's config.")
    thresholds: Thresholds = Field(
        default_factory=Thresholds,
        description="The similarity and frozen thresholds measured at (the defaults for a file written before them).",
    )
    rrr_convention: str = Field(
        "RRR is undefined for a task with fewer than two reflections; means are over tasks where it is defined.",
    )
    conditions: list[ConditionReport]
    outside_plan: list[OutsidePlan] = Field(
        default_factory=list, description="Records the run's plan does not hold: named here, counted nowhere."
    )

    @computed_field(  # type: ignore[prop-decorator]  # pydantic's documented form over a property
        description="Fisher's exact test of solved counts for every pair of conditions, with Holm's p: what "
        "report.md's exact tests show, from the counts (so a metrics.json written before it reads the same)."
    )
    @property
    def solved_tests(self) -> list[PairwiseFisher]:
        return pairwise_fisher([(c.condition, c.totals.solved, c.totals.tasks) for c in self.conditions])


MentionCounter = Callable[[Sequence[TrialRecord]], MentionCounts]
IdentityRule = Callable[[TrialRecord], ReflectionIdentity | None]


def task_identity(records: Sequence[TrialRecord], rule: IdentityRule) -> IdentityCounts:
    """The identity labels of one task's reflections, by the rule as it is now (a record's stored label may be an
    older rule's)."""
    return identity_counts(label for record in records if (label := rule(record)) is not None)


def condition_report(
    records: Sequence[TrialRecord],
    condition: str,
    targets: Mapping[str, str],
    mentions: MentionCounter | None = None,
    identity: IdentityRule | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> ConditionReport:
    """Metrics of one condition; `targets` maps each task id to its target object, `mentions` counts object
    mention over one task's records when the domain has its own rule (HumanEval's failed test cases), `identity`
    labels each reflection's task identity (None: the domain has no identity rule).

    Each (task, repeat) is a chain measured on its own; a task's chains are pooled (`pool_repeats`), so the task
    counts once."""
    mine = [r for r in records if r.condition == condition]
    if not mine:
        raise ValueError(f"no record of condition {condition!r}.")
    by_chain: dict[str, dict[int, list[TrialRecord]]] = {}
    for record in mine:
        by_chain.setdefault(record.task_id, {}).setdefault(record.repeat, []).append(record)

    def chain(task: str, chain_records: list[TrialRecord]) -> TaskMetrics:
        return task_metrics(
            chain_records,
            targets[task],
            mentions(chain_records) if mentions else None,
            task_identity(chain_records, identity) if identity else None,
            thresholds.similarity_threshold,
            thresholds.frozen_threshold,
        )

    def task(task_id: str) -> TaskMetrics:
        chains = [sorted(by_chain[task_id][k], key=lambda r: r.trial) for k in sorted(by_chain[task_id])]
        pooled = pool_repeats([chain(task_id, records) for records in chains], thresholds.frozen_threshold)
        return pooled.model_copy(update={"figures": measured_per_chain(chains, thresholds)})

    tasks = [task(task_id) for task_id in sorted(by_chain)]
    pairs = spearman_pairs(tasks)
    return ConditionReport(
        condition=condition,
        actor_model=mine[0].actor_model,
        reflector_model=mine[0].reflector_model,
        totals=condition_metrics(tasks),
        spearman=[spearman_rrr_vs_trials(pairs, convention) for convention in SPEARMAN_CONVENTIONS],
        tasks=tasks,
        run_on=run_on_counts(mine),
    )


def run_metrics(
    records: Sequence[TrialRecord],
    plan: RunPlan,
    targets: Mapping[str, str],
    mentions: MentionCounter | None = None,
    identity: IdentityRule | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> RunMetrics:
    """One report per condition of the plan that has records, in the plan's order, measured at `thresholds` (the
    run's `metrics` settings); records outside the plan are named, not counted (`targets` need only cover the plan's
    tasks)."""
    held, outside = split_by_plan(records, plan)
    present = {r.condition for r in held}
    return RunMetrics(
        trial_budget=plan.trials,
        thresholds=thresholds,
        conditions=[
            condition_report(held, c, targets, mentions, identity, thresholds) for c in plan.conditions if c in present
        ],
        outside_plan=outside,
    )


def write_metrics(run_dir: Path, metrics: RunMetrics) -> Path:
    return write_whole(Path(run_dir) / METRICS_FILE, metrics.model_dump_json(indent=2))
