"""Running an implementation against its internal tests, and the feedback Reflexion writes about the run.

As in Reflexion's `PyExecutor.execute`, each internal test runs on its own (here: its own sandbox process)
after `from typing import *`, with a 5 s limit, so a test that hangs or raises does not stop the others.
The feedback lists the passing asserts, then the failing ones as `<assert> # output: <value>`:
- `reflexion` (the default): what the original prints, `str()` of the compared value, an exception's message
  alone, `TIMEOUT`, and for an assert that is no comparison the error its `.left` lookup raises;
- `repr`: the harness's option, the value's `repr` and an exception as `Type: message`, which tells `'1'`
  from `1` and names the exception.
"""

from __future__ import annotations

import ast
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.records.humaneval import CodeSignals
from harness.domains.humaneval.signals import extract_code_signals, raised_error
from harness.llm.prompts import read_prompt
from envs.sandbox import AssertTests, SandboxLimits, Verdict, run_tests

FeedbackStyle = Literal["reflexion", "repr"]
TYPING_PREAMBLE = "from typing import *"
TIMEOUT_OUTPUT = "TIMEOUT"


class InternalRun(BaseModel):
    """One implementation run against each internal test on its own."""

    model_config = ConfigDict(frozen=True)

    tests: list[str] = Field(description="The asserts, in order.")
    verdicts: list[Verdict] = Field(description="The sandbox verdict of each assert's own run, in the same order.")

    @property
    def passed(self) -> bool:
        """Every test passed (also when there is none, as in Reflexion)."""
        return all(verdict.passed for verdict in self.verdicts)

    @property
    def status(self) -> str:
        """The first status other than passed, else 'passed' ('no_tests' without tests)."""
        if not self.verdicts:
            return "no_tests"
        return next((v.status for v in self.verdicts if not v.passed), "passed")


def run_internal_tests(code: str, tests: list[str], limits: SandboxLimits) -> InternalRun:
    """Run `code` against each of `tests` in its own sandbox process."""
    verdicts = [run_tests(code, AssertTests(asserts=[test]), limits, preamble=TYPING_PREAMBLE) for test in tests]
    return InternalRun(tests=tests, verdicts=verdicts)


def _stop_output(verdict: Verdict) -> str:
    if verdict.status == "timeout":
        return TIMEOUT_OUTPUT
    if verdict.status == "resource_limit":
        return f"{(verdict.resource_limit or 'resource').replace('_', ' ')} limit exceeded"
    if verdict.status == "killed_by_signal":
        return f"killed by {verdict.signal}"
    return "the process exited"


def _no_comparison(test: str) -> str | None:
    """The original's output for an assert it cannot take the left side of: the AttributeError's message."""
    try:
        node = ast.parse(test).body[0]
    except (SyntaxError, ValueError, IndexError):
        return None
    if isinstance(node, ast.Assert) and not isinstance(node.test, ast.Compare):
        return f"'{type(node.test).__name__}' object has no attribute 'left'"
    return None


def test_output(test: str, verdict: Verdict, style: FeedbackStyle) -> str | None:
    """What follows `# output:` for one test's run; None if it passed."""
    if verdict.passed:
        return None
    if style == "reflexion":
        lookup_error = _no_comparison(test)
        if lookup_error is not None:
            return lookup_error
    if verdict.status == "timeout":
        return TIMEOUT_OUTPUT
    error = verdict.load_error or next((t.error for t in verdict.tests if t.error is not None), None)
    if error is not None:
        return error.message if style == "reflexion" else raised_error(error, None, None).output()
    failed = next((t for t in verdict.tests if t.outcome == "failed"), None)
    if failed is not None:
        value = failed.actual_str if style == "reflexion" else failed.actual
        return value if value is not None else "AssertionError"
    return _stop_output(verdict)


def feedback_text(run: InternalRun, style: FeedbackStyle) -> str:
    """Reflexion's test feedback: 'Tested passed:' then 'Tests failed:' with outputs."""
    outputs = [test_output(test, verdict, style) for test, verdict in zip(run.tests, run.verdicts)]
    passed = "".join(f"\n{test}" for test, output in zip(run.tests, outputs) if output is None)
    failed = "".join(f"\n{test} # output: {output}" for test, output in zip(run.tests, outputs) if output is not None)
    return read_prompt("humaneval/test_feedback.txt").format(passed=passed, failed=failed)


def internal_signals(run: InternalRun, entry_point: str) -> CodeSignals:
    """The failure signals of every test's run, numbered by the test's place among the internal tests."""
    parts = [
        extract_code_signals(verdict, AssertTests(asserts=[test]), entry_point)
        for test, verdict in zip(run.tests, run.verdicts)
    ]
    # Every run loads the same code, so a load error is the same in each: it is reported once.
    load_errors = [error for part in parts for error in part.exceptions if error.test is None][:1]
    return CodeSignals(
        failed_asserts=[f.model_copy(update={"test": i}) for i, p in enumerate(parts) for f in p.failed_asserts],
        exceptions=load_errors
        + [e.model_copy(update={"test": i}) for i, p in enumerate(parts) for e in p.exceptions if e.test is not None],
        timeout=any(p.timeout for p in parts),
        resource_limit=next((p.resource_limit for p in parts if p.resource_limit), None),
        killed_by=next((p.killed_by for p in parts if p.killed_by), None),
        exited_early=any(p.exited_early for p in parts),
        unfinished=next((p.unfinished for p in parts if p.unfinished), None),
    )
