"""What a HumanEval trial leaves in its record: the internal tests, the code, the sandbox's signals, the attempt.

Models only: reading a record loads none of the actor, sandbox or LLM machinery that made it. Nothing here
depends on the clock (sandbox seconds go to the record's timing), so replays compare equal.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.records.attempt import attempt_details

TestDropReason = Literal["syntax_error", "not_a_single_assert", "no_entry_point_call", "duplicate", "over_limit"]


class DroppedTest(BaseModel):
    """A line of the model's tests that is not run, and why."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="The line, stripped.")
    reason: TestDropReason = Field(description="Which check it failed, in the order they are applied.")
    detail: str = Field(description="What exactly was wrong, e.g. the syntax error or the test it repeats.")


class InternalTests(BaseModel):
    """The model's unit tests for a problem, as Reflexion reads them (lines containing 'assert'), checked."""

    model_config = ConfigDict(frozen=True)

    kept: list[str] = Field(description="The tests the filter let through, at most max_tests, in answer order.")
    dropped: list[DroppedTest] = Field(description="Every other line containing 'assert', with its reason.")
    raw: str = Field(description="The model's answer.")


class Implementation(BaseModel):
    """Code read from the model's answer, ready to run."""

    model_config = ConfigDict(frozen=True)

    code: str = Field(description="The module to run: the function (and whatever the answer defined with it).")
    raw: str = Field(description="The model's answer.")
    extracted: bool = Field(description="Code was found; false: the answer held none (see `code`).")
    body_only: bool = Field(description="repair: the answer was a function body, completed onto the prompt.")
    indentation_repaired: bool = Field(description="repair: the code compiled only after re-indenting a body.")
    prepended: list[str] = Field(
        description="repair: statements of the problem's prompt (imports, helpers) the answer lacked, put before it."
    )


class CheckedCall(BaseModel):
    """One test as written, with the call of the function under test it checks."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="The test's statement as the tests wrote it, e.g. 'assert add(1, 2) == 3'.")
    call: str | None = Field(
        description="The call of the function under test as written, e.g. 'add(1, 2)': the comparison's left "
        "side if it is one, else the first in the test; null if the test does not parse or never calls it."
    )
    inputs: list[str] = Field(
        description="The call's arguments in order: the repr of each literal value, else the argument's source; "
        "keyword arguments as name=value."
    )


class FailedAssert(CheckedCall):
    """An assert of the tests that was false."""

    expected: str | None = Field(description="repr of the comparison's right side; null for a bare assert.")
    actual: str | None = Field(description="repr of the comparison's left side, or of the asserted expression.")
    operator: str | None = Field(
        description="The comparison, e.g. '==', or 'not' for `assert not x`; null for `assert x`."
    )
    call_is_compared: bool = Field(description="The call is what was compared, so `actual` is its return value.")
    test: int = Field(ge=0, description="0-based index of the test in its suite (0 for a check script).")
    line: int | None = Field(description="Line of the assert in a test script; null for an assert list.")

    def line_text(self) -> str:
        """'Test `<assert>` failed: add(1, 2) returned -1, expected 3.'"""
        subject = f"{self.call} returned" if self.call_is_compared and self.call else "the left side was"
        if self.operator == "==":
            wanted = f", expected {self.expected}"
        elif self.operator == "not":
            wanted = ", expected a false value"
        elif self.operator is None:
            wanted = ", expected a true value"
        else:
            wanted = f", expected {self.operator} {self.expected}"
        return f"Test `{self.source}` failed: {subject} {self.actual}{wanted}."


class RaisedError(BaseModel):
    """An exception that escaped the code, while loading it or during a test."""

    model_config = ConfigDict(frozen=True)

    type: str = Field(description='Class name, e.g. "ZeroDivisionError".')
    message: str = Field(description="str() of the exception, truncated by the sandbox.")
    line: int | None = Field(description="Implementation line that raised it (deepest frame); null if none.")
    text: str | None = Field(description="That line's source text, stripped; null if none.")
    during: CheckedCall | None = Field(description="The test it escaped from; null while loading the code.")
    test: int | None = Field(description="0-based index of that test in its suite; null while loading the code.")

    def output(self) -> str:
        """'Type: message', or the type alone for an exception without a message."""
        return f"{self.type}: {self.message}" if self.message else self.type

    def line_text(self) -> str:
        """'Test `<assert>` raised Type: message at line N of the implementation: `<text>`.'"""
        who = f"Test `{self.during.source}`" if self.during else "Loading the code"
        where = f" at line {self.line} of the implementation: `{self.text}`" if self.line is not None else ""
        return f"{who} raised {self.output()}{where}."


class CodeSignals(BaseModel):
    """Every failure signal of one sandbox run of an implementation."""

    model_config = ConfigDict(frozen=True)

    failed_asserts: list[FailedAssert] = Field(description="Asserts of the tests that were false, in test order.")
    exceptions: list[RaisedError] = Field(description="The load error first, then errors of the tests, in order.")
    timeout: bool = Field(description="The run was killed at its wall-time limit.")
    resource_limit: str | None = Field(description="The sandbox's name of the limit that stopped the code, if one did.")
    killed_by: str | None = Field(description='Signal that killed the process, e.g. "SIGSEGV"; null otherwise.')
    exited_early: bool = Field(description="The process ended (sys.exit, os._exit) before the tests finished.")
    unfinished: CheckedCall | None = Field(
        description="The first test that never reported when the run was stopped (the code may also have been "
        "stopped while loading, before it); null if every test reported or the tests are a check script."
    )

    @property
    def has_failures(self) -> bool:
        return bool(
            self.failed_asserts
            or self.exceptions
            or self.timeout
            or self.resource_limit
            or self.killed_by
            or self.exited_early
        )

    @property
    def failed_cases(self) -> list[CheckedCall]:
        """Every test case that did not pass and is known: false asserts, tests that raised, the unfinished test."""
        raised = [error.during for error in self.exceptions if error.during is not None]
        return [*self.failed_asserts, *raised, *([self.unfinished] if self.unfinished else [])]

    def render(self) -> str:
        """One line per signal, for a reflection prompt: the load error, the tests in order, then the stop;
        "" when there is none."""
        per_test: list[FailedAssert | RaisedError] = [*self.failed_asserts, *self.exceptions]
        # sorted() is stable and a load error has no test, so it comes first; a test has one outcome.
        ordered = sorted(per_test, key=lambda signal: -1 if signal.test is None else signal.test)
        stop = self._stop_line()
        return "\n".join([signal.line_text() for signal in ordered] + ([stop] if stop else []))

    def _stop_line(self) -> str | None:
        before = f", before test `{self.unfinished.source}` finished" if self.unfinished else ""
        if self.timeout:
            return f"The code was still running at the time limit{before}."
        if self.resource_limit:
            return f"The code hit the {self.resource_limit.replace('_', ' ')} limit{before}."
        if self.killed_by:
            return f"The process was killed by {self.killed_by}{before}."
        if self.exited_early:
            return f"The process exited before the tests finished{before}."
        return None


@attempt_details
class CodeAttempt(BaseModel):
    """One implementation, the internal tests it ran against, and what the sandbox said."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["humaneval"] = "humaneval"
    internal_tests: InternalTests | None = Field(
        description="The tests the model wrote, kept and dropped with reasons (trial 0; later trials reuse them)."
    )
    tests_run: list[str] = Field(description="The internal asserts the implementation was run against.")
    implementation: Implementation = Field(description="The code and the answer it was read from.")
    internal_status: str = Field(description="The sandbox verdict on the internal tests, or 'no_tests'.")
    check_status: str | None = Field(description="The verdict of the real check(), run once internal tests pass.")
    signals: CodeSignals = Field(description="Failure signals of the internal-test run (never of check()).")
