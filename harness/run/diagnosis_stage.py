"""The diagnosis stage: every failed trial with a reflection gets its ground truth, its reflection's claims and the
heuristic rows' claims written to RUN_DIR/diagnosis.jsonl, once, durably (`harness.records.diagnosis_log`).

Run at a run's end when `metrics.diagnosis` is true, by `reflexion-diagnosis RUN_DIR` for a run played without it,
and by the re-reflection bank. A stage that was killed resumes: trials already written are skipped. The report only
reads the file. The ground truth can be costly (ALFWorld replays each trial through the engine), hence the setting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.domains.base import Domain, ReflectionHooks, ReflectionInput
from harness.domains.registry import domain_spec
from harness.domains.spec import ClaimRule, TruthRule
from harness.errors import ConfigError
from harness.metrics.diagnosis.rows import (
    FIRST_LOOP_START,
    FIRST_NOTHING_HAPPENS,
    LAST_STEP,
    PARSER_SIGNALS,
    code_signals_cause,
    listed_signals_cause,
    step_claims,
    step_rows,
)
from harness.records import TrialRecord
from harness.records.details import (
    ExtractedCodeSignals,
    ListedSignals,
)
from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.diagnosis_log import (
    TrialDiagnosis,
    diagnosis_log,
    trajectory_sha256,
)


class NoDiagnosisRules(ConfigError):
    """The domain has no ground-truth or claim rule, so its reflections cannot be scored."""


@dataclass(frozen=True)
class DiagnosisRules:
    """A domain's two rules and, where its hooks are at hand, the parser's signals for the heuristic rows."""

    truth: TruthRule
    claims: ClaimRule
    hooks: ReflectionHooks | None = None
    max_steps: int = 1


def diagnosis_rules(domain: str, hooks: ReflectionHooks | None = None, max_steps: int = 1) -> DiagnosisRules:
    """Domain `domain`'s rules; NoDiagnosisRules naming it when it has none."""
    spec = domain_spec(domain)
    if spec.truth is None or spec.claims is None:
        raise NoDiagnosisRules(f"domain {domain!r} has no diagnosis rules (its spec's `truth` and `claims`).")
    return DiagnosisRules(spec.truth.load(), spec.claims.load(), hooks, max_steps)


def run_rules(domain: Domain) -> DiagnosisRules:
    """The rules of a run's domain, with its hooks for the parser's signals."""
    return diagnosis_rules(domain.name, domain.reflection, domain.max_steps)


def check_diagnosis(diagnosis: bool, domain: Domain) -> None:
    """Refuse `metrics.diagnosis=true` before the run starts when its domain cannot score a diagnosis."""
    if diagnosis and (domain_spec(domain.name).truth is None or domain_spec(domain.name).claims is None):
        raise NoDiagnosisRules(
            f"metrics.diagnosis=true, but domain {domain.name!r} has no diagnosis rules (its spec's `truth` and "
            "`claims`); leave metrics.diagnosis=false."
        )


def alfworld_rows(record: TrialRecord, truth: GroundTruth, max_steps: int) -> dict[str, ReflectionClaims]:
    """ALFWorld's heuristic rows, by its domain's step choices (diagnosis_baselines)."""
    from harness.domains.alfworld import diagnosis_baselines as choose

    steps = record.trajectory
    return {
        LAST_STEP: step_claims(choose.last_step(steps), None),
        FIRST_NOTHING_HAPPENS: step_claims(choose.first_nothing_happens(steps), "invalid_action"),
        FIRST_LOOP_START: step_claims(choose.first_loop_start(steps), "loop"),
        PARSER_SIGNALS: choose.signal_claims(steps, record.end_reason, max_steps),
    }


BASELINES: dict[str, Callable[[TrialRecord, GroundTruth, int], dict[str, ReflectionClaims]]] = {
    "alfworld": alfworld_rows,
}
"""A domain's own heuristic rows; another domain gets the last step and its parser's signals read as a cause."""


def trajectory_rows(record: TrialRecord, truth: GroundTruth, rules: DiagnosisRules) -> dict[str, ReflectionClaims]:
    """The heuristic rows' claims about one scored trial."""
    if not truth.scored:
        return {}
    if truth.domain in BASELINES:
        return BASELINES[truth.domain](record, truth, rules.max_steps)
    if rules.hooks is None:
        return step_rows(truth)
    signals, _ = rules.hooks.failure_signals(
        ReflectionInput(
            domain=truth.domain,
            task_id=record.task_id,
            task_text=record.task_text,
            scenario="",  # the signals read the steps and the evidence, never the reflector's text
            trajectory=record.trajectory,
            end_reason=record.end_reason,
            max_steps=rules.max_steps,
            evidence=record.attempt_details,
            memory=[],
        )
    )
    if isinstance(signals, ExtractedCodeSignals):
        return step_rows(truth) | {PARSER_SIGNALS: code_signals_cause(signals.signals)}
    if isinstance(signals, ListedSignals):
        return step_rows(truth) | {PARSER_SIGNALS: listed_signals_cause(signals.lines)}
    return step_rows(truth)


def trial_diagnosis(
    record: TrialRecord,
    rules: DiagnosisRules,
    next_success: bool | None = None,
    trajectory: str = "",
    truth: GroundTruth | None = None,
) -> TrialDiagnosis:
    """One failed trial's diagnosis record (`truth` given: computed once for a trajectory several sources read)."""
    truth = truth if truth is not None else rules.truth(record)
    claims = rules.claims(record, truth) if record.reflection is not None else None
    return TrialDiagnosis(
        task_id=record.task_id,
        condition=record.condition,
        trial=record.trial,
        repeat=record.repeat,
        trajectory=trajectory,
        trajectory_sha256=trajectory_sha256(record.trajectory),
        truth=truth,
        claims=claims,
        rows=trajectory_rows(record, truth, rules),
        next_success=next_success,
    )


def _next_success(records: Sequence[TrialRecord]) -> Callable[[TrialRecord], bool | None]:
    outcome = {r.key: r.success for r in records}
    return lambda r: outcome.get((r.task_id, r.condition, r.trial + 1, r.repeat))


def diagnose_run(run_dir: Path, records: Sequence[TrialRecord], rules: DiagnosisRules) -> int:
    """Write the diagnosis of every failed trial with a reflection not yet in RUN_DIR/diagnosis.jsonl; how many
    were written. Each is appended as it is computed, so a stage stopped part-way keeps what it did."""
    log = diagnosis_log(run_dir)
    done = {item.key for item in log.read()}
    next_success = _next_success(records)
    memo: dict[str, GroundTruth] = {}  # trial 0 is the same trajectory under every condition that shares the actor
    written = 0
    for record in records:
        if record.success or record.reflection is None or (*record.key, "") in done:
            continue
        sha = trajectory_sha256(record.trajectory)
        memo_key = f"{record.task_id}\n{sha}"
        if memo_key not in memo:
            memo[memo_key] = rules.truth(record)
        log.append([trial_diagnosis(record, rules, next_success(record), truth=memo[memo_key])])
        written += 1
    return written
