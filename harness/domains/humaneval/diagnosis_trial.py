"""A failed HumanEval trial as the diagnosis rules read it, from a record, from a line of `reflexion-diagnosis`
(`{"domain": "humaneval", "task": "HumanEval/N", "prompt", "implementation", "feedback", "reflection"}`), or from a
labelled item whose sandbox evidence was stored with it.

The sandbox runs twice per trial (`hidden_tests`): every hidden test on the implementation in one process, every
failed internal test on the reference in another (about 0.1 s each here, more when the code hangs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from envs.humaneval import HumanEvalProblem, load_problems
from harness.domains.humaneval.hidden_tests import (
    TestOutcome,
    failed_internal_tests,
    run_hidden,
    run_on_reference,
)
from harness.records import TrialRecord
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


@lru_cache(maxsize=256)
def _trial_evidence(task_id: str, implementation: str, feedback: str) -> FailedCode:
    # One trial's sandbox runs serve every reflection on it (a bank's four sources read the same trial).
    return run_evidence(problem_of(task_id), implementation, feedback)


def from_record(record: TrialRecord) -> FailedCode:
    """A HumanEval record's trial: its one step is the implementation and the feedback it got."""
    if not isinstance(record.attempt_details, CodeAttempt) or not record.trajectory:
        raise ValueError(f"{record.task_id}: the record keeps no HumanEval attempt")
    step = record.trajectory[-1]
    return _trial_evidence(record.task_id, step.action, step.observation)


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
