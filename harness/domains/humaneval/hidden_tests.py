"""The real tests of a HumanEval problem, one by one: check()'s asserts run separately on an implementation, and
the agent's own tests run on the reference solution. What the diagnosis ground truth reads; never shown to a
condition.

check() is split into its top-level statements. A statement that calls `candidate` and asserts (an `assert`, or a
loop or block holding asserts) is one hidden test; the others (assignments, imports, `assert True, "..."`) are set-up
and run in their place. All of them run in one sandbox process as an assert list, so one failure does not hide the
next and each test's outcome is reported on its own. A run stopped by a test (a time limit, a resource limit) is
resumed after that test in a fresh process, its set-up statements run again.
"""

from __future__ import annotations

import ast
import textwrap
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from envs.humaneval import HumanEvalProblem
from envs.sandbox import (
    AssertTests,
    RaisedException,
    SandboxLimits,
    TestResult,
    Verdict,
    run_tests,
)
from harness.domains.humaneval.feedback import TYPING_PREAMBLE
from harness.domains.humaneval.signals import CHECK_PARAMETER

HIDDEN_LIMITS = SandboxLimits(timeout_s=10.0)
"""One process's limits while running the hidden tests: Reflexion's check() limit, per resumed run."""
REFERENCE_LIMITS = SandboxLimits(timeout_s=5.0)
"""The agent's tests on the reference solution: Reflexion's limit of an internal test."""

Outcome = Literal["passed", "failed", "error", "timeout", "stopped", "not_run"]
FAILED_HEADER = "Tests failed:"
OUTPUT_MARK = "# output:"


class HiddenTest(BaseModel):
    """One hidden test: a top-level statement of check() that calls `candidate` and asserts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int = Field(ge=1, description="1-based, in check()'s order, counting hidden tests only.")
    source: str = Field(description="The statement as check() writes it, dedented.")


class TestOutcome(BaseModel):
    """What one test did on the code it ran against."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    __test__ = False  # not a pytest test class

    number: int = Field(ge=1, description="1-based: the hidden test's number, or the internal test's place.")
    source: str
    outcome: Outcome = Field(
        description="failed: an assert was false; error: an exception escaped; timeout: the run's time ran out in "
        "this test; stopped: another limit or an exit ended the run in it; not_run: nothing reached it."
    )
    actual: str | None = Field(None, description="repr of the value the failing assert compared, if known.")
    error_type: str | None = Field(None, description="The exception's class, for an error.")
    message: str | None = Field(None, description="The exception's message, or what stopped the run.")

    def result_text(self) -> str:
        """'passed', 'failed: returned 3', 'raised IndexError: ...', 'timed out', as a reader is shown it."""
        if self.outcome == "failed":
            return f"failed: returned {self.actual}" if self.actual is not None else "failed"
        if self.outcome == "error":
            return f"raised {self.error_type}: {self.message}" if self.message else f"raised {self.error_type}"
        if self.outcome == "timeout":
            return "timed out"
        if self.outcome == "stopped":
            return f"stopped: {self.message}"
        return self.outcome.replace("_", " ")


def _statement(source: str, node: ast.stmt) -> str:
    return textwrap.dedent(ast.get_source_segment(source, node, padded=True) or ast.unparse(node))


def _calls_candidate(node: ast.stmt) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == CHECK_PARAMETER for n in ast.walk(node)
    )


def _asserts(node: ast.stmt) -> bool:
    return any(isinstance(n, ast.Assert) for n in ast.walk(node))


def split_check(problem: HumanEvalProblem) -> tuple[list[str], list[tuple[str, int | None]]]:
    """The test script's module set-up (everything but check()), and check()'s statements in order, each with its
    hidden test's number (None for set-up)."""
    tree = ast.parse(problem.test)
    setup = [_statement(problem.test, n) for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "check")]
    check = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check")
    body: list[tuple[str, int | None]] = []
    number = 0
    for node in check.body:
        is_test = _calls_candidate(node) and _asserts(node)
        number += is_test
        body.append((_statement(problem.test, node), number if is_test else None))
    return setup, body


def hidden_tests(problem: HumanEvalProblem) -> list[HiddenTest]:
    """The problem's hidden tests, numbered from 1."""
    return [HiddenTest(number=n, source=s) for s, n in split_check(problem)[1] if n is not None]


def _outcome(number: int, source: str, result: TestResult) -> TestOutcome:
    if result.outcome == "passed":
        return TestOutcome(number=number, source=source, outcome="passed")
    if result.outcome == "failed":
        return TestOutcome(number=number, source=source, outcome="failed", actual=result.actual)
    error = result.error
    return TestOutcome(
        number=number,
        source=source,
        outcome="error",
        error_type=error.type if error else None,
        message=error.message if error else None,
    )


def _stop(number: int, source: str, verdict: Verdict) -> TestOutcome:
    if verdict.status == "timeout":
        return TestOutcome(number=number, source=source, outcome="timeout")
    reason = verdict.resource_limit and f"{verdict.resource_limit.replace('_', ' ')} limit" or verdict.signal
    return TestOutcome(number=number, source=source, outcome="stopped", message=reason or verdict.status)


def _all_raise(
    remaining: list[tuple[str, int | None]], error: RaisedException, found: dict[int, TestOutcome]
) -> dict[int, TestOutcome]:
    for source, number in remaining:
        if number is not None:
            found[number] = TestOutcome(
                number=number, source=source, outcome="error", error_type=error.type, message=error.message
            )
    return found


def _run_statements(
    code: str, prefix: list[str], body: list[tuple[str, int | None]], limits: SandboxLimits
) -> dict[int, TestOutcome]:
    """Each numbered statement's outcome, resuming after a test that stopped the run."""
    found: dict[int, TestOutcome] = {}
    remaining = list(body)
    while remaining:
        statements = prefix + [source for source, _ in remaining]
        verdict = run_tests(code, AssertTests(asserts=statements), limits, preamble=TYPING_PREAMBLE)
        if verdict.load_error is not None:
            return _all_raise(remaining, verdict.load_error, found)
        bound = verdict.tests[len(prefix) - 1].error if prefix and len(verdict.tests) >= len(prefix) else None
        if bound is not None:
            # The candidate (the entry point) could not be bound: every test fails on that.
            return _all_raise(remaining, bound, found)
        results = verdict.tests[len(prefix) :]
        for (source, number), result in zip(remaining, results):
            if number is not None:
                found[number] = _outcome(number, source, result)
        stopped_at = len(results)
        if stopped_at >= len(remaining) or len(verdict.tests) < len(prefix):
            break
        source, number = remaining[stopped_at]
        if number is not None:
            found[number] = _stop(number, source, verdict)
        # Set-up statements already run are run again in the fresh process; tests already run are not.
        prefix = prefix + [s for s, n in remaining[:stopped_at] if n is None]
        remaining = remaining[stopped_at + 1 :]
    return found


def run_hidden(problem: HumanEvalProblem, code: str, limits: SandboxLimits = HIDDEN_LIMITS) -> list[TestOutcome]:
    """Every hidden test's outcome on `code`, in check()'s order."""
    setup, body = split_check(problem)
    prefix = setup + [f"{CHECK_PARAMETER} = {problem.entry_point}"]
    found = _run_statements(code, prefix, body, limits)
    return [
        found.get(n, TestOutcome(number=n, source=s, outcome="not_run")) for s, n in body if n is not None
    ]


def failed_internal_tests(feedback: str) -> list[tuple[str, str]]:
    """(test, what followed `# output:`) for every line under "Tests failed:" in Reflexion's feedback (a test is any
    line holding "assert" that Reflexion kept: `self.assertEqual(...)` too)."""
    _, _, failed = feedback.partition(FAILED_HEADER)
    found = []
    for line in failed.splitlines():
        test, mark, output = line.strip().rpartition(OUTPUT_MARK)
        if mark and test.strip():
            found.append((test.strip(), output.strip()))
    return found


def run_on_reference(
    problem: HumanEvalProblem, tests: list[str], limits: SandboxLimits = REFERENCE_LIMITS
) -> list[TestOutcome]:
    """The agent's tests on HumanEval's canonical solution, each on its own, in one process."""
    if not tests:
        return []
    reference = problem.prompt + problem.canonical_solution
    found = _run_statements(reference, [], [(test, i) for i, test in enumerate(tests, start=1)], limits)
    return [found.get(i, TestOutcome(number=i, source=t, outcome="not_run")) for i, t in enumerate(tests, start=1)]
