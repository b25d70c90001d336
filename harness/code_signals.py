"""Deterministic failure signals read off a sandbox Verdict of code under test.

The HumanEval counterpart of `trajectory_parser`: what the sandbox itself says went wrong, with no
model in the loop and no second run: asserts that were false (the call, its inputs, expected and
actual values), exceptions (with the implementation line that raised them), and how the run was
stopped (time limit, resource limit, signal, early exit), with the test it did not finish.
"""

from __future__ import annotations

import ast

from pydantic import BaseModel, ConfigDict, Field

from harness.sandbox import AssertTests, RaisedException, ResourceLimit, TestResult, TestSuite, Verdict

CHECK_PARAMETER = "candidate"
"""HumanEval's check(candidate) calls the function under test by this name, not by its entry point."""

STOP_STATUSES = ("timeout", "resource_limit", "killed_by_signal", "exited_early")
"""Statuses that can end a run before every test has reported."""

_OPERATORS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}


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
    resource_limit: ResourceLimit | None = Field(description="The limit that stopped the code, if one did.")
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


def _callee(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else None


def _value_text(node: ast.expr, source: str) -> str:
    """The repr of a literal argument (so 'x' and "x" read alike), else its source text."""
    try:
        return repr(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ast.get_source_segment(source, node) or ast.unparse(node)


def _inputs(call: ast.Call, source: str) -> list[str]:
    values = [_value_text(arg, source) for arg in call.args]
    for keyword in call.keywords:
        value = _value_text(keyword.value, source)
        values.append(f"{keyword.arg}={value}" if keyword.arg else f"**{value}")
    return values


def _parse(source: str, entry_point: str) -> tuple[ast.Assert | None, ast.Call | None]:
    """The test's assert and its call of the function under test: the left side of the comparison if it is
    one, else the first in source order; None where there is none (a call of anything else names no test
    case: `check(f)`, or HumanEval/32's `poly(coeffs, solution)`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None, None
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.Assert)), None)
    if node is None:
        return None, None
    callees = {entry_point, CHECK_PARAMETER}
    test = node.test
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Call) and _callee(test.left) in callees:
        return node, test.left
    calls = [n for n in ast.walk(test) if isinstance(n, ast.Call) and _callee(n) in callees]
    return node, min(calls, key=lambda c: (c.lineno, c.col_offset), default=None)


def _checked(source: str, call: ast.Call | None) -> dict[str, object]:
    if call is None:
        return {"source": source, "call": None, "inputs": []}
    return {"source": source, "call": ast.get_source_segment(source, call), "inputs": _inputs(call, source)}


def checked_call(source: str, entry_point: str) -> CheckedCall:
    """A test statement with the call it makes to the function under test, parsed with ast."""
    _, call = _parse(source, entry_point)
    return CheckedCall.model_validate(_checked(source, call))


def _comparison(node: ast.Assert | None) -> tuple[str | None, ast.expr | None]:
    """The assert's operator and the expression whose value `actual` holds."""
    if node is None:
        return None, None
    test = node.test
    if isinstance(test, ast.Compare):
        return _OPERATORS.get(type(test.ops[0])), test.left
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return "not", test.operand
    return None, test


def failed_assert(result: TestResult, test: int, entry_point: str) -> FailedAssert:
    """A false assert of the tests, with its call, inputs and compared values."""
    node, call = _parse(result.source, entry_point)
    operator, compared = _comparison(node)
    return FailedAssert.model_validate(
        {
            **_checked(result.source, call),
            "expected": result.expected,
            "actual": result.actual,
            "operator": operator,
            "call_is_compared": call is not None and call is compared,
            "test": test,
            "line": result.line,
        }
    )


def raised_error(error: RaisedException, during: CheckedCall | None, test: int | None) -> RaisedError:
    """An exception as the sandbox reported it, with the implementation line it came from."""
    line = error.implementation_line
    return RaisedError(
        type=error.type,
        message=error.message,
        line=line.line if line else None,
        text=line.text if line else None,
        during=during,
        test=test,
    )


def _erring_test(result: TestResult, entry_point: str) -> CheckedCall:
    # In a check script the test is check(candidate); the assert that raised is the script's traceback line.
    test_line = result.error.test_line if result.error else None
    return checked_call(test_line.text if test_line else result.source, entry_point)


def check_belongs(verdict: Verdict, tests: TestSuite) -> None:
    """Refuse a verdict of other tests: results are matched to asserts by position."""
    if not isinstance(tests, AssertTests):
        return
    if len(verdict.tests) > len(tests.asserts) or any(
        # The sandbox cuts long sources to a prefix ending in "...", so compare what it kept.
        not statement.startswith(result.source.removesuffix("..."))
        for result, statement in zip(verdict.tests, tests.asserts)
    ):
        raise ValueError("the verdict's test results do not match these asserts; pass the suite that was run.")


def unfinished_test(verdict: Verdict, tests: TestSuite) -> int | None:
    """Index of the first assert that never reported because the run was stopped; None if none is known."""
    stopped = verdict.status in STOP_STATUSES and verdict.load_error is None
    if not stopped or not isinstance(tests, AssertTests) or len(verdict.tests) >= len(tests.asserts):
        return None
    return len(verdict.tests)


def extract_code_signals(verdict: Verdict, tests: TestSuite, entry_point: str) -> CodeSignals:
    """Every failure signal of a run of `tests` (the suite that produced `verdict`) on code defining `entry_point`."""
    check_belongs(verdict, tests)
    failed = [
        failed_assert(result, index, entry_point)
        for index, result in enumerate(verdict.tests)
        if result.outcome == "failed"
    ]
    errors = [raised_error(verdict.load_error, None, None)] if verdict.load_error else []
    errors += [
        raised_error(result.error, _erring_test(result, entry_point), index)
        for index, result in enumerate(verdict.tests)
        if result.error is not None
    ]
    unfinished = unfinished_test(verdict, tests)
    return CodeSignals(
        failed_asserts=failed,
        exceptions=errors,
        timeout=verdict.status == "timeout",
        resource_limit=verdict.resource_limit,
        killed_by=verdict.signal,
        exited_early=verdict.status == "exited_early",
        # unfinished_test only names a test of an assert list.
        unfinished=checked_call(tests.asserts[unfinished], entry_point)
        if unfinished is not None and isinstance(tests, AssertTests)
        else None,
    )
