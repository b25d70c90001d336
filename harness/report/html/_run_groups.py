"""A run's records as the page's groups: per task and condition, its trials in order, each reflection with the
earlier one it is most similar to and where it names its object, by the run's own domain's rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.domains.registry import (
    IdentityRule,
    MentionRule,
    SpanRule,
    TargetRule,
    identity_rule,
    mention_rules,
    mention_spans,
)
from harness.metrics.core import TaskMetrics, is_frozen, most_similar_earlier, reflection_repetition_rate
from harness.metrics.run import RunMetrics
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds
from harness.records import TrialRecord
from harness.records.details import GateOutcome, TemplateParts
from harness.records.diagnosis_log import DiagnosisKey, TrialDiagnosis
from harness.records.identity import ReflectionIdentity
from harness.report.html._details import record_blocks
from harness.report.html._model import DiagnosisView, Entry, Group, Mention, Nearest


class _Rules:
    """The domain's mention rules, or none when the run's domain is unknown or its rules refuse a task."""

    def __init__(self, domain: str | None) -> None:
        self.target: TargetRule | None = None
        self.mentions: MentionRule | None = None
        self.spans: SpanRule | None = None
        self.identity_rule: IdentityRule | None = None
        if domain is None:
            return
        self.identity_rule = identity_rule(domain)
        try:
            self.target, self.mentions = mention_rules(domain)
        except ValueError:
            return
        self.spans = mention_spans(domain)

    def mention(self, record: TrialRecord) -> Mention | None:
        """The domain's own count over this one reflection, so the page agrees with metrics.json."""
        if self.mentions is None or record.reflection is None:
            return None
        try:
            counts = self.mentions([record])
            spans = self.spans(record) if self.spans else []
        except ValueError:
            return None
        return Mention(strict=counts.strict > 0, normalized=counts.normalized > 0, spans=spans)

    def identity(self, record: TrialRecord) -> ReflectionIdentity | None:
        """The label metrics.json counts: the domain's rule as it is now, not an older rule's stored label."""
        if self.identity_rule is None:
            return None
        try:
            return self.identity_rule(record)
        except ValueError:
            return None

    def target_of(self, task: str) -> str | None:
        try:
            return self.target(task) if self.target else None
        except ValueError:
            return None


def _outcome(record: TrialRecord) -> str:
    steps = f"{record.steps} step{'s' if record.steps != 1 else ''}"
    return f"won, {steps}" if record.success else f"{record.end_reason}, {steps}"


def _memory(record: TrialRecord, earlier: Sequence[tuple[int, str]]) -> str | None:
    """Which earlier trials' reflections the actor read, by trial: the memory window is the last reflections
    written, in order; items that are not (the gate's live lessons) are counted instead."""
    if not record.memory:
        return "memory: empty" if record.trial > 0 else None
    window = earlier[-len(record.memory):] if len(earlier) >= len(record.memory) else []
    if [text for _, text in window] == record.memory:
        return "read " + ", ".join(f"trial {trial}" for trial, _ in window)
    return f"read {len(record.memory)} memory item{'s' if len(record.memory) != 1 else ''}"


def _no_reflection(record: TrialRecord) -> str:
    if record.success:
        return "solved: no reflection"
    details = record.reflection_details
    if isinstance(details, TemplateParts) and details.malformed:
        return "refused answer: no reflection stored"
    if isinstance(details, GateOutcome):
        return "the gate approved no lesson: nothing written to memory"
    if record.reflector_model == "none":
        return "this condition writes no reflection"
    return "no reflection written after this trial"


def diagnosis_view(found: TrialDiagnosis) -> DiagnosisView:
    """A trial's diagnosis record as the reflection view shows it."""
    truth, claims = found.truth, found.claims
    claimed = claims.claimed_steps if claims else []
    return DiagnosisView(
        decisive_step=truth.decisive_step if truth.scored else None,
        category=truth.category,
        error_steps=truth.error_steps,
        claimed_steps=claimed,
        claimed_cause=claims.cause if claims else None,
        ambiguous=bool(claims and claims.ambiguous),
        hit=None if truth.decisive_step is None or not truth.scored else truth.decisive_step in claimed,
        confabulated=[(c.kind, c.text) for c in claims.claims if c.confabulated] if claims else [],
        unscored=None if truth.scored else truth.unscored or "unscored",
    )


def task_group(
    records: Sequence[TrialRecord],
    label: str,
    rules: _Rules,
    metrics: TaskMetrics | None,
    run: str | None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    diagnosis: Mapping[DiagnosisKey, TrialDiagnosis] | None = None,
) -> Group:
    """One chain of a task under one condition; `metrics` as metrics.json gives them (recomputed from the records if
    None), repeats marked at the run's `thresholds`."""
    ordered = sorted(records, key=lambda r: r.trial)
    memory = [r.reflection for r in ordered if r.reflection is not None]
    matches = iter(most_similar_earlier(memory, thresholds.similarity_threshold))
    reflection_trials: list[int] = []
    written: list[tuple[int, str]] = []
    entries = []
    for index, record in enumerate(ordered):
        nearest = None
        if record.reflection is not None:
            match = next(matches)
            if match is not None:
                earlier = reflection_trials[match.index]
                nearest = Nearest(
                    entry=earlier,
                    label=f"trial {ordered[earlier].trial}",
                    similarity=match.similarity,
                    repeats=match.repeats,
                )
            reflection_trials.append(index)
        entries.append(
            Entry(
                label=f"trial {record.trial}",
                success=record.success,
                outcome=_outcome(record),
                memory=_memory(record, written),
                reflection=record.reflection,
                no_reflection=None if record.reflection is not None else _no_reflection(record),
                nearest=nearest,
                mention=rules.mention(record),
                identity=rules.identity(record),
                details=record_blocks(record),
                trajectory=[(step.action, step.observation) for step in record.trajectory],
                diagnosis=diagnosis_view(found) if (found := (diagnosis or {}).get((*record.key, ""))) else None,
            )
        )
        if record.reflection is not None:
            written.append((record.trial, record.reflection))
    won = [r.trial for r in ordered if r.success]
    rrr = metrics.rrr if metrics else reflection_repetition_rate(memory, thresholds.similarity_threshold)
    return Group(
        task=ordered[0].task_id,
        condition=label,
        run=run,
        target=metrics.target_object if metrics else rules.target_of(ordered[0].task_id),
        solved=bool(won),
        solved_note=f"solved in trial {won[0]}" if won else f"unsolved after {len(ordered)} trials",
        rrr=rrr,
        frozen=metrics.frozen if metrics else is_frozen(rrr, thresholds.frozen_threshold),
        entries=entries,
    )


def run_groups(
    name: str,
    domain: str | None,
    records: Sequence[TrialRecord],
    metrics: RunMetrics,
    labels: Mapping[str, str],
    show_run: bool,
    diagnosis: Sequence[TrialDiagnosis] = (),
) -> list[Group]:
    """Every (task, condition) of one run, one group per repeat (each chain measured on its own, the pooled task
    figures being no single chain's); `labels` gives each condition's label on the page."""
    rules = _Rules(domain)
    measured = {(c.condition, t.task_id): t for c in metrics.conditions for t in c.tasks}
    by_key: dict[tuple[str, str, int], list[TrialRecord]] = {}
    for record in records:
        by_key.setdefault((record.condition, record.task_id, record.repeat), []).append(record)
    repeated = any(repeat > 0 for _, _, repeat in by_key)
    run = name if show_run else None
    groups = []
    keyed = {found.key: found for found in diagnosis}
    for (condition, task, repeat), mine in by_key.items():
        label = labels.get(condition, condition)
        label = f"{label}, repeat {repeat}" if repeated else label
        measured_task = None if repeated else measured.get((condition, task))
        groups.append(task_group(mine, label, rules, measured_task, run, metrics.thresholds, keyed))
    return groups
