"""One domain's diagnosis table: the chance and heuristic rows and every condition's row, each measure a share over
tasks; the same table on the trials whose decisive step is an invalid action or a loop (the signals the
`programmatic` condition is shown) and on the rest; the efficacy link; the paired effects against the control."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.diagnosis.effects import CONTROL, PairedEffect, paired_effects
from harness.metrics.diagnosis.figures import CATALOGUED, figure_name
from harness.metrics.diagnosis.row import DiagnosisRow, MeasureShare, RowKind
from harness.metrics.diagnosis.rows import RANDOM_STEP, ROW_NAMES
from harness.metrics.diagnosis.scores import (
    MEASURE_NAMES,
    ReflectionScore,
    expected_random,
    score_claims,
)
from harness.metrics.diagnosis.shares import by_task, measure_share
from harness.metrics.run import RunMetrics
from harness.records.diagnosis import CAUSES
from harness.records.diagnosis_log import TrialDiagnosis

SIGNALLED_CAUSES = ("invalid_action", "loop")
Stratum = Literal["signalled", "other"]
STRATA: dict[Stratum, str] = {
    "signalled": "Trials whose decisive step is an invalid action or a loop (what the parser signals)",
    "other": "Trials whose decisive step is any other error",
}


class EfficacyLink(BaseModel):
    """Whether a right diagnosis helps: the chain's next trial solved after an exact-step hit and after a miss."""

    model_config = ConfigDict(frozen=True)

    condition: str
    after_hit: MeasureShare
    after_miss: MeasureShare


class DomainDiagnosis(BaseModel):
    """Everything the Diagnosis section shows for one domain."""

    model_config = ConfigDict(frozen=True)

    domain: str
    trajectories: int = Field(ge=0, description="Distinct failed trajectories with a reflection.")
    unscored: list[str] = Field(description="Why each unscored trajectory is unscored (a replay that diverged).")
    rules: list[str] = Field(description="The ground-truth and claim rules that scored them, with their versions.")
    categories: dict[str, int] = Field(description="The decisive causes of the scored trajectories, counted.")
    rows: list[DiagnosisRow]
    strata: dict[Stratum, list[DiagnosisRow]] = Field(description="The same rows on each stratum (ALFWorld).")
    efficacy: list[EfficacyLink] = Field(description="Per condition; empty where no chain has a next trial.")
    effects: list[PairedEffect] = Field(description="Each condition against the control, paired (`effects`).")
    control: str | None = Field(description="The control of the paired effects; None when it has no reflection.")


def _trajectory_unit(item: TrialDiagnosis) -> tuple[str, str]:
    return (item.task_id, item.trajectory_sha256)


def _row(name: str, kind: RowKind, scored: Sequence[tuple[str, ReflectionScore, int | None]]) -> DiagnosisRow:
    measures = {
        m: measure_share(by_task((task, score.value(m)) for task, score, _ in scored), expected=kind == "chance")
        for m in MEASURE_NAMES
    }
    named = [count for _, _, count in scored if count is not None]
    return DiagnosisRow(
        name=name,
        kind=kind,
        trials=len(scored),
        tasks=len({task for task, _, _ in scored}),
        measures=measures,
        claimed_steps=sum(named) / len(named) if named else None,
    )


def condition_row(items: Sequence[TrialDiagnosis], condition: str) -> DiagnosisRow | None:
    """The condition's row: its scored reflections; None without one."""
    scored = [(i.task_id, score_claims(i.truth, i.claims), len(i.claims.claimed_steps))
              for i in items if i.condition == condition and i.claims is not None and i.truth.scored]
    return _row(condition, "condition", scored) if scored else None


def _rows(items: Sequence[TrialDiagnosis], conditions: Sequence[str]) -> list[DiagnosisRow]:
    distinct = list({_trajectory_unit(item): item for item in items if item.truth.scored}.values())
    rows = [_row(RANDOM_STEP, "chance", [(i.task_id, expected_random(i.truth), 1) for i in distinct])]
    for name in ROW_NAMES[1:]:
        stored = [(i.task_id, score_claims(i.truth, i.rows[name]), len(i.rows[name].claimed_steps))
                  for i in distinct if name in i.rows]
        if stored:
            rows.append(_row(name, "heuristic", stored))
    return rows + [row for condition in conditions if (row := condition_row(items, condition)) is not None]


def _stratum(item: TrialDiagnosis) -> Stratum:
    return "signalled" if item.truth.category in SIGNALLED_CAUSES else "other"


def _efficacy(items: Sequence[TrialDiagnosis], conditions: Sequence[str]) -> list[EfficacyLink]:
    links = []
    for condition in conditions:
        defined = [(i.task_id, exact, float(bool(i.next_success))) for i in items
                   if i.condition == condition and i.claims is not None and i.next_success is not None
                   and (exact := score_claims(i.truth, i.claims).exact) is not None]
        if defined:
            hit, miss = ([(task, solved) for task, exact, solved in defined if exact == value] for value in (1.0, 0.0))
            links.append(EfficacyLink(condition=condition, after_hit=measure_share(by_task(hit)),
                                      after_miss=measure_share(by_task(miss))))
    return links


def domain_diagnosis(
    domain: str, items: Sequence[TrialDiagnosis], conditions: Sequence[str], control: str = CONTROL
) -> DomainDiagnosis:
    """The table of one domain's diagnosis records, its conditions in `conditions`' order."""
    mine = _by_domain(items).get(domain, [])
    distinct = {_trajectory_unit(item): item for item in mine}
    scored = [item for item in distinct.values() if item.truth.scored]
    categories: dict[str, int] = {}
    for item in scored:
        category = item.truth.category or "none"
        categories[category] = categories.get(category, 0) + 1
    strata: dict[Stratum, list[DiagnosisRow]] = {}
    if set(SIGNALLED_CAUSES) <= set(CAUSES.get(domain, ())):
        for stratum in STRATA:
            chosen = [item for item in mine if _stratum(item) == stratum]
            strata[stratum] = _rows(chosen, conditions) if chosen else []
    rules = sorted({item.truth.rule for item in mine} | {i.claims.rule for i in mine if i.claims is not None})
    has_control = any(item.condition == control and item.claims is not None for item in mine)
    return DomainDiagnosis(
        domain=domain,
        trajectories=len(distinct),
        unscored=[f"{item.task_id}: {item.truth.unscored}" for item in distinct.values() if not item.truth.scored],
        rules=rules,
        categories=dict(sorted(categories.items())),
        rows=_rows(mine, conditions),
        strata=strata,
        efficacy=_efficacy(mine, conditions),
        effects=paired_effects(mine, conditions, control) if has_control else [],
        control=control if has_control else None,
    )


def _by_domain(items: Sequence[TrialDiagnosis]) -> dict[str, list[TrialDiagnosis]]:
    """The records grouped by the domain their ground truth was computed in, in order of first appearance."""
    grouped: dict[str, list[TrialDiagnosis]] = {}
    for item in items:
        grouped.setdefault(item.truth.domain, []).append(item)
    return grouped


def run_diagnosis(
    items: Sequence[TrialDiagnosis], conditions: Sequence[str], control: str = CONTROL
) -> list[DomainDiagnosis]:
    """One table per domain the records hold, in order of first appearance."""
    return [domain_diagnosis(domain, mine, conditions, control) for domain, mine in _by_domain(items).items()]



def with_diagnosis(metrics: RunMetrics, items: Sequence[TrialDiagnosis] | None) -> RunMetrics:
    """The run's metrics with each condition's diagnosis row and, per task, its value of each catalogued measure (the
    mean over the task's scored reflections, in `TaskMetrics.figures`, which the catalogue's diagnosis figures
    average over tasks); unchanged without a diagnosis.jsonl."""
    if items is None:
        return metrics
    conditions = []
    for c in metrics.conditions:
        mine = [i for i in items if i.condition == c.condition and i.claims is not None and i.truth.scored]
        tasks = [t.model_copy(update={"figures": t.figures | _task_values(mine, t.task_id)}) for t in c.tasks]
        totals = c.totals.model_copy(update={"diagnosis": condition_row(items, c.condition)})
        conditions.append(c.model_copy(update={"totals": totals, "tasks": tasks}))
    return metrics.model_copy(update={"conditions": conditions})


def _task_values(items: Sequence[TrialDiagnosis], task: str) -> dict[str, float | None]:
    scores = [score_claims(i.truth, i.claims) for i in items if i.task_id == task and i.claims is not None]
    values: dict[str, float | None] = {}
    for measure in CATALOGUED:
        defined = [v for score in scores if (v := score.value(measure)) is not None]
        values[figure_name(measure)] = sum(defined) / len(defined) if defined else None
    return values
