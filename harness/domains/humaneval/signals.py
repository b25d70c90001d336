"""Deterministic failure signals read off a sandbox Verdict of code under test.

The HumanEval counterpart of ALFWorld's `signals`: what the sandbox itself says went wrong, with no
model in the loop and no second run: asserts that were false (the call, its inputs, expected and
actual values), exceptions (with the implementation line that raised them), and how the run was
stopped (time limit, resource limit, signal, early exit), with the test it did not finish.
"""

from __future__ import annotations

import ast

from harness.records.humaneval import CheckedCall, CodeSignals, FailedAssert, RaisedError
from envs.sandbox import AssertTests, RaisedException, TestResult, TestSuite, Verdict

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
