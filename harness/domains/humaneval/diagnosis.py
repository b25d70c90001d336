"""HumanEval's diagnosis as the spec names it: a failed trial's ground truth and what its reflection claims, for a
record, a line of `reflexion-diagnosis` and a labelled item; and the parser's signals read as a diagnosis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.domains.humaneval.diagnosis_claims import reflection_claims
from harness.domains.humaneval.diagnosis_trial import (
    FailedCode,
    from_evidence,
    from_line,
    from_record,
)
from harness.domains.humaneval.diagnosis_truth import RULE, code_truth, input_classes
from harness.records import TrialRecord
from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.humaneval import CodeAttempt


def trial_truth(code: FailedCode) -> GroundTruth:
    """The trial's ground truth from its sandbox runs."""
    return code_truth(code.problem, code.hidden, code.reference)


def record_truth(record: TrialRecord) -> GroundTruth:
    """The spec's `truth`: a failed trial's record -> its ground truth (unscored for a success)."""
    if record.success:
        return GroundTruth(domain="humaneval", task_id=record.task_id, rule=RULE, scored=False,
                           unscored="the trial succeeded: there is nothing to diagnose.")  # fmt: skip
    return trial_truth(from_record(record))


def record_claims(record: TrialRecord, truth: GroundTruth) -> ReflectionClaims:
    """The spec's `claims`: what a record's reflection claims (the hidden tests' outcomes from the sandbox; the truth
    itself is not read)."""
    return reflection_claims(from_record(record), record.reflection or "")


def line_diagnosis(line: dict[str, Any]) -> tuple[GroundTruth, ReflectionClaims]:
    """The spec's `line_diagnosis`: one line of `reflexion-diagnosis` -> the trial's truth and the reflection's claims."""
    code, reflection = from_line(line)
    return trial_truth(code), reflection_claims(code, reflection)


def evidence_diagnosis(item: Mapping[str, Any]) -> tuple[GroundTruth, ReflectionClaims]:
    """The same for a labelled item, its sandbox runs as stored (the agreement checks run no sandbox)."""
    code, reflection = from_evidence(item)
    return trial_truth(code), reflection_claims(code, reflection)


SIGNALS_RULE = "humaneval-signals/1"


def signal_claims(record: TrialRecord) -> ReflectionClaims:
    """The heuristic row "the parser's own signals read as a diagnosis": what `programmatic` is shown (the sandbox's
    signals of the internal tests, `CodeAttempt.signals`) read as a reflection. Its cause: an exception, a time or
    resource limit, else a wrong result; the hidden tests it points at: those sharing an input class with a failed
    internal test's call, those raising the exception type it shows, those that hung where it hung."""
    attempt = record.attempt_details
    if not isinstance(attempt, CodeAttempt):
        raise ValueError(f"{record.task_id}: the record keeps no HumanEval attempt")
    signals, code = attempt.signals, from_record(record)
    if not signals.has_failures:
        return ReflectionClaims(rule=SIGNALS_RULE)
    stopped = signals.timeout or signals.resource_limit is not None or signals.killed_by is not None
    cause = "exception" if signals.exceptions else "timeout" if stopped else "wrong_result"
    entry = (code.problem.entry_point,)
    named = {c for case in signals.failed_cases for c in input_classes(case.source, entry)}
    types = {error.type for error in signals.exceptions}
    steps = sorted(
        o.number
        for o in code.hidden
        if set(input_classes(o.source)) & named
        or (o.outcome == "error" and o.error_type in types)
        or (stopped and o.outcome in ("timeout", "stopped"))
    )
    return ReflectionClaims(rule=SIGNALS_RULE, claimed_steps=steps, cause=cause)
