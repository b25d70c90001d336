"""A failed HumanEval trial as the diagnosis rules read it, from a record, from a line of `reflexion-diagnosis`
(`{"domain": "humaneval", "task": "HumanEval/N", "prompt", "implementation", "feedback", "reflection"}`), or from a
labelled item whose sandbox evidence was stored with it; and the spec's three diagnosis rules.

The sandbox runs twice per trial (`hidden_tests`): every hidden test on the implementation in one process, every
failed internal test on the reference in another (about 0.1 s each here, more when the code hangs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from envs.humaneval import HumanEvalProblem, load_problems
from harness.domains.humaneval.hidden_tests import (
    TestOutcome,
    failed_internal_tests,
    run_hidden,
    run_on_reference,
)
from harness.records import TrialRecord
from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.humaneval import CodeAttempt

_PROBLEMS: dict[str, HumanEvalProblem] = {}


@dataclass(frozen=True)
class FailedCode:
    """What the rules read of one failed trial: the problem, the attempt, and the sandbox's evidence."""

    problem: HumanEvalProblem
    implementation: str
    feedback: str
    hidden: tuple[TestOutcome, ...]
    reference: tuple[TestOutcome, ...]


def problem_of(task_id: str) -> HumanEvalProblem:
    """A HumanEval problem by id; ValueError naming the id when there is none."""
    if not _PROBLEMS:
        _PROBLEMS.update({problem.task_id: problem for problem in load_problems()})
    if task_id not in _PROBLEMS:
        raise ValueError(f"`task` {task_id!r} is no HumanEval problem; ids look like 'HumanEval/0'")
    return _PROBLEMS[task_id]


def run_evidence(problem: HumanEvalProblem, implementation: str, feedback: str) -> FailedCode:
    """The trial with its sandbox runs made now."""
    internal = [test for test, _ in failed_internal_tests(feedback)]
    hidden = tuple(run_hidden(problem, implementation))
    return FailedCode(problem, implementation, feedback, hidden, tuple(run_on_reference(problem, internal)))


def from_record(record: TrialRecord) -> FailedCode:
    """A HumanEval record's trial: its one step is the implementation and the feedback it got."""
    if not isinstance(record.attempt_details, CodeAttempt) or not record.trajectory:
        raise ValueError(f"{record.task_id}: the record keeps no HumanEval attempt")
    step = record.trajectory[-1]
    return run_evidence(problem_of(record.task_id), step.action, step.observation)


def _text(line: Mapping[str, Any], field: str) -> str:
    value = line.get(field)
    if not isinstance(value, str):
        raise ValueError(f"`{field}` must be a string")
    return value


def from_line(line: Mapping[str, Any]) -> tuple[FailedCode, str]:
    """A line's trial (its sandbox runs made now) and its reflection; ValueError naming the field that is wrong."""
    problem = problem_of(_text(line, "task"))
    implementation, feedback, reflection = (_text(line, f) for f in ("implementation", "feedback", "reflection"))
    _text(line, "prompt")
    return run_evidence(problem, implementation, feedback), reflection


def from_evidence(item: Mapping[str, Any]) -> tuple[FailedCode, str]:
    """A labelled item's trial, its sandbox runs as stored with it (tests/fixtures/diagnosis/humaneval/)."""
    evidence = item["evidence"]
    return (
        FailedCode(
            problem_of(item["task"]),
            item["implementation"],
            item["feedback"],
            tuple(TestOutcome.model_validate(o) for o in evidence["hidden"]),
            tuple(TestOutcome.model_validate(o) for o in evidence["reference"]),
        ),
        item["reflection"],
    )


def trial_truth(code: FailedCode) -> GroundTruth:
    from harness.domains.humaneval.diagnosis_truth import code_truth

    return code_truth(code.problem, code.hidden, code.reference)


def record_truth(record: TrialRecord) -> GroundTruth:
    """The spec's `truth`: a failed trial's record -> its ground truth (unscored for a success)."""
    from harness.domains.humaneval.diagnosis_truth import RULE

    if record.success:
        return GroundTruth(domain="humaneval", task_id=record.task_id, rule=RULE, scored=False,
                           unscored="the trial succeeded: there is nothing to diagnose.")  # fmt: skip
    return trial_truth(from_record(record))


def record_claims(record: TrialRecord, truth: GroundTruth) -> ReflectionClaims:
    """The spec's `claims`: what a record's reflection claims (the hidden tests' outcomes from the sandbox; the truth
    itself is not read)."""
    from harness.domains.humaneval.diagnosis_claims import reflection_claims

    return reflection_claims(from_record(record), record.reflection or "")


def line_diagnosis(line: dict[str, Any]) -> tuple[GroundTruth, ReflectionClaims]:
    """The spec's `line_diagnosis`: one line of `reflexion-diagnosis` -> the trial's truth and the reflection's claims."""
    from harness.domains.humaneval.diagnosis_claims import reflection_claims

    code, reflection = from_line(line)
    return trial_truth(code), reflection_claims(code, reflection)


def evidence_diagnosis(item: Mapping[str, Any]) -> tuple[GroundTruth, ReflectionClaims]:
    """The same for a labelled item, its sandbox runs as stored (the agreement checks run no sandbox)."""
    from harness.domains.humaneval.diagnosis_claims import reflection_claims

    code, reflection = from_evidence(item)
    return trial_truth(code), reflection_claims(code, reflection)


SIGNALS_RULE = "humaneval-signals/1"


def signal_claims(record: TrialRecord) -> ReflectionClaims:
    """The heuristic row "the parser's own signals read as a diagnosis": what `programmatic` is shown (the sandbox's
    signals of the internal tests, `CodeAttempt.signals`) read as a reflection. Its cause: an exception, a time or
    resource limit, else a wrong result; the hidden tests it points at: those sharing an input class with a failed
    internal test's call, those raising the exception type it shows, those that hung where it hung."""
    from harness.domains.humaneval.diagnosis_truth import input_classes

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
