"""summary.md: a run's headline figures, its condition table, the task x condition RRR grid, tokens and cost."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from harness.domains.registry import identity_note, mention_note
from harness.metrics.cost import ConditionPrices, UsageTotals, condition_usage
from harness.metrics.run import RunMetrics
from harness.metrics.run_on import RunOnCounts
from harness.metrics.served import Drift, served_drift
from harness.records import RunPlan, TrialRecord, describe_outside, split_by_plan
from harness.report.cost_table import usage_table
from harness.report._run_on_section import warning_blocks
from harness.report.document import BulletList, Document, Section, render_markdown
from harness.report.tables import conditions_table, rrr_grid

SUMMARY_FILE = "summary.md"


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class NamedConfig(Protocol):
    """What summary.md reads of a run's config (the run's validated config has it): the names of its parts."""

    @property
    def conditions(self) -> Sequence[_Named]: ...
    @property
    def actor(self) -> _Named: ...
    @property
    def reflector(self) -> _Named: ...
    @property
    def env(self) -> _Named: ...


class ConditionSummary(BaseModel):
    """Headline figures of one condition."""

    condition: str
    tasks: int
    solved: int
    solved_by_trial: list[int] = Field(description="Tasks solved by the end of each trial, cumulative.")
    reflections: int
    usage: UsageTotals = Field(description="LLM calls, cache hits, tokens, and their estimated cost at list price.")


class RunSummary(BaseModel):
    """Per-run headline figures, also written as summary.md; records outside the run's plan count in none of them."""

    trials: int
    records: int = Field(description="Records the plan holds.")
    outside_plan: int = Field(0, description="Records in trials.jsonl the plan does not hold (named in summary.md).")
    conditions: list[ConditionSummary]
    llm_calls: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    unreported_calls: int = Field(0, description="Calls whose server sent no token counts: in neither figure above.")
    env_s: float
    llm_s: float
    wall_s: float
    drift: list[Drift] = Field(default_factory=list, description="Served models or fingerprints changed mid-run.")


def condition_summary(
    records: list[TrialRecord], condition: str, tasks: int, trials: int, prices: ConditionPrices
) -> ConditionSummary:
    mine = [r for r in records if r.condition == condition]
    solved_by_trial = [len({r.task_id for r in mine if r.success and r.trial <= t}) for t in range(trials)]
    return ConditionSummary(
        condition=condition,
        tasks=tasks,
        solved=solved_by_trial[-1] if solved_by_trial else 0,
        solved_by_trial=solved_by_trial,
        reflections=sum(r.reflection is not None for r in mine),
        usage=condition_usage(mine, prices),
    )


def summarize(records: list[TrialRecord], plan: RunPlan, prices: dict[str, ConditionPrices]) -> RunSummary:
    """The headline figures of the records the plan holds."""
    held, outside = split_by_plan(records, plan)
    tasks = len(plan.tasks) if plan.tasks is not None else len({r.task_id for r in held})
    return RunSummary(
        trials=plan.trials,
        records=len(held),
        outside_plan=len(outside),
        conditions=[condition_summary(held, c, tasks, plan.trials, prices[c]) for c in plan.conditions],
        llm_calls=sum(r.llm_calls for r in held),
        cache_hits=sum(r.cache_hits for r in held),
        prompt_tokens=sum(r.usage.prompt_tokens for r in held),
        completion_tokens=sum(r.usage.completion_tokens for r in held),
        unreported_calls=sum(r.usage.unreported_calls for r in held),
        env_s=round(sum(r.timing.env_s for r in held), 2),
        llm_s=round(sum(r.timing.llm_s for r in held), 2),
        wall_s=round(sum(r.timing.wall_s for r in held), 2),
        drift=served_drift(held),
    )


def unknown_tokens(summary: RunSummary) -> str:
    """The calls whose tokens no figure counts, for the tokens line: unknown, not 0."""
    if not summary.unreported_calls:
        return ""
    return f" (and {summary.unreported_calls} call(s) whose server sent no token counts: unknown, not counted)"


def reflection_ends(counts: RunOnCounts | None) -> str:
    """A condition's reflector answers by how they ended, for its summary line."""
    if counts is None:
        return ""
    unrecorded = f", finish_reason unrecorded: {counts.limit_unrecorded}" if counts.limit_unrecorded else ""
    return (
        f" (reflector answers: {counts.reflections}; at the token limit: {counts.hit_limit}; ran on past their end: "
        f"{counts.ran_on}{unrecorded})"
    )


def summary_document(
    summary: RunSummary, metrics: RunMetrics, config: NamedConfig, prices: dict[str, ConditionPrices]
) -> Document:
    names = ", ".join(c.name for c in config.conditions)
    ends = {c.condition: c.run_on for c in metrics.conditions}
    items = [
        f"run models: actor {config.actor.name}, reflector {config.reflector.name}",
        f"tasks: {summary.conditions[0].tasks if summary.conditions else 0}; trials: {summary.trials}; "
        f"records: {summary.records}",
    ]
    if metrics.outside_plan:
        items.append(describe_outside(metrics.outside_plan))
    for c in summary.conditions:
        by_trial = ", ".join(f"trial {t}: {n}" for t, n in enumerate(c.solved_by_trial))
        items.append(
            f"{c.condition}: solved {c.solved}/{c.tasks} (cumulative by trial: {by_trial}); "
            f"reflections written: {c.reflections}{reflection_ends(ends.get(c.condition))}"
        )
    items += [
        f"LLM calls: {summary.llm_calls} ({summary.cache_hits} from cache); "
        f"tokens: {summary.prompt_tokens} prompt, {summary.completion_tokens} completion{unknown_tokens(summary)}",
        f"seconds in the environment ({config.env.name}): {summary.env_s}; waiting on the LLM: {summary.llm_s}; "
        f"trial wall time: {summary.wall_s}",
    ]
    items += [drift.sentence() for drift in summary.drift]
    notes = [note] if (note := mention_note(config.env.name)) else []
    identity = [note] if (note := identity_note(config.env.name)) else []
    usage = [(c.condition, c.usage) for c in summary.conditions]
    return Document(
        f"Run summary: {names} on {config.env.name}",
        [
            *warning_blocks([(c.condition, c.run_on) for c in metrics.conditions]),
            BulletList(items),
            Section("Conditions", conditions_table(metrics.conditions, notes, identity, metrics.thresholds)),
            Section("Reflection repetition per task", rrr_grid(metrics.conditions)),
            Section("Tokens and estimated cost", usage_table(usage, prices.values())),
        ],
    )


def summary_markdown(
    summary: RunSummary, metrics: RunMetrics, config: NamedConfig, prices: dict[str, ConditionPrices]
) -> str:
    """summary.md; `prices` are the ones `summarize` costed the conditions at."""
    return render_markdown(summary_document(summary, metrics, config, prices))
