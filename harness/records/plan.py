"""A run's plan (conditions x tasks x trials x repeats) and the records that fall outside it.

A run directory can hold records its plan does not: a run resumed with fewer trials or repeats, with another game set or
without a condition (`+resume.allow_config_change=true`), records adopted without a manifest, a hand-edited line.
They stay in trials.jsonl (nothing recorded is lost), but no figure counts them: metrics.json, summary.md and
report.md name them instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.records.trial import Manifest, TrialRecord

SHOWN = 3
"""Records named one by one in a sentence about records outside the plan; the rest are counted."""


class OutsidePlan(BaseModel):
    """A record the run's plan does not hold: named, never counted."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    condition: str
    trial: int
    repeat: int = 0
    reason: str = Field(description="Why the plan does not hold it.")


class RunPlan(BaseModel):
    """What a run is meant to hold: every (task, condition, trial, repeat) it plays."""

    model_config = ConfigDict(frozen=True)

    conditions: list[str] = Field(description="The run's conditions, in its order.")
    tasks: list[str] | None = Field(
        description="The run's task ids; None when unknown (a manifest written before manifests listed them)."
    )
    trials: int = Field(ge=1, description="Trials per task.")
    repeats: int = Field(1, ge=1, description="Independent chains of trials per (task, condition).")


def split_by_plan(records: Sequence[TrialRecord], plan: RunPlan) -> tuple[list[TrialRecord], list[OutsidePlan]]:
    """The records the plan holds, in file order, and the others, each with its reason."""
    conditions, tasks = set(plan.conditions), None if plan.tasks is None else set(plan.tasks)
    held: list[TrialRecord] = []
    outside: list[OutsidePlan] = []
    for record in records:
        if record.condition not in conditions:
            reason = f"condition not one of the run's: {', '.join(plan.conditions)}"
        elif tasks is not None and record.task_id not in tasks:
            reason = f"task not one of the run's {len(tasks)}"
        elif record.trial >= plan.trials:
            reason = f"trial beyond the run's {plan.trials}"
        elif record.repeat >= plan.repeats:
            reason = f"repeat beyond the run's {plan.repeats}"
        else:
            held.append(record)
            continue
        outside.append(
            OutsidePlan(
                task_id=record.task_id,
                condition=record.condition,
                trial=record.trial,
                repeat=record.repeat,
                reason=reason,
            )
        )
    return held, outside


def manifest_plan(manifest: Manifest | None, records: Sequence[TrialRecord], trials: int | None = None) -> RunPlan:
    """The plan a run's manifest states; what it does not state is taken from `trials`, else from the records.

    A manifest written before repeats existed states none: its run played one chain per (task, condition).
    """
    config = manifest.config if manifest else {}
    configured = [c["name"] for c in config.get("conditions", []) if isinstance(c, dict) and "name" in c]
    experiment = config.get("experiment") or {}
    if "trials" in experiment:
        trials = int(experiment["trials"])
    if manifest is not None:
        repeats = int(experiment.get("repeats", 1))
    else:
        repeats = max((r.repeat for r in records), default=0) + 1
    return RunPlan(
        conditions=configured or list(dict.fromkeys(r.condition for r in records)),
        tasks=manifest.tasks if manifest else None,
        trials=trials or max((r.trial for r in records), default=0) + 1,
        repeats=repeats,
    )


def describe_outside(outside: Sequence[OutsidePlan]) -> str:
    """One sentence naming the records outside the plan (the first few with their reasons), or "" for none."""
    if not outside:
        return ""
    named = [
        f"{o.task_id} / {o.condition} / trial {o.trial}{f' / repeat {o.repeat}' if o.repeat else ''} ({o.reason})"
        for o in outside[:SHOWN]
    ]
    more = f"; and {len(outside) - SHOWN} more" if len(outside) > SHOWN else ""
    return f"{len(outside)} record(s) outside the run's plan, kept but not counted: {'; '.join(named)}{more}."
