"""Programmatic extraction for code, read off verdicts of the real sandbox."""

from __future__ import annotations

import pytest

from envs.humaneval import load_problems
from harness.records.humaneval import CheckedCall
from harness.domains.humaneval.signals import checked_call, extract_code_signals
from envs.sandbox import AssertTests, CheckScript, SandboxLimits, run_tests

PROBLEMS = {problem.task_id: problem for problem in load_problems()}
HAS_CLOSE = PROBLEMS["HumanEval/0"]
INVERSE = "def inverse(x):\n    y = 1\n    return y / x\n"


def test_a_false_assert_gives_its_call_inputs_and_both_values() -> None:
    tests = AssertTests(
        asserts=[
            "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False",
            "assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) == True",
        ]
    )
    verdict = run_tests(HAS_CLOSE.prompt + "    return False\n", tests)
    signals = extract_code_signals(verdict, tests, HAS_CLOSE.entry_point)
    (failed,) = signals.failed_asserts
    assert failed.call == "has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)"
    assert failed.inputs == ["[1.0, 2.8, 3.0, 4.0, 5.0, 2.0]", "0.3"]
    assert (failed.expected, failed.actual, failed.operator, failed.call_is_compared) == ("True", "False", "==", True)
    assert (failed.test, failed.line) == (1, None)
    assert signals.exceptions == [] and signals.unfinished is None
    assert not (signals.timeout or signals.exited_early or signals.resource_limit or signals.killed_by)
    assert signals.has_failures
    assert signals.render() == (
        "Test `assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) == True` failed: "
        "has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) returned False, expected True."
    )


def test_a_zero_division_names_the_implementation_line_and_the_test() -> None:
    tests = AssertTests(asserts=["assert inverse(2) == 0.5", "assert inverse(0) == 0"])
    signals = extract_code_signals(run_tests(INVERSE, tests), tests, "inverse")
    (error,) = signals.exceptions
    assert (error.type, error.message, error.line, error.text, error.test) == (
        "ZeroDivisionError",
        "division by zero",
        3,
        "return y / x",
        1,
    )
    assert error.during == CheckedCall(source="assert inverse(0) == 0", call="inverse(0)", inputs=["0"])
    assert signals.failed_asserts == []
    assert signals.failed_cases == [error.during]
    assert signals.render() == (
        "Test `assert inverse(0) == 0` raised ZeroDivisionError: division by zero "
        "at line 3 of the implementation: `return y / x`."
    )


def test_a_timeout_names_the_test_the_run_did_not_finish() -> None:
    tests = AssertTests(asserts=["assert loop(0) == 0", "assert loop(1) == 1", "assert loop(2) == 2"])
    code = "def loop(x):\n    while x:\n        pass\n    return x\n"
    signals = extract_code_signals(run_tests(code, tests, SandboxLimits(timeout_s=1)), tests, "loop")
    assert signals.timeout and signals.has_failures
    assert signals.unfinished == CheckedCall(source="assert loop(1) == 1", call="loop(1)", inputs=["1"])
    assert signals.failed_cases == [signals.unfinished]
    assert (
        signals.render() == "The code was still running at the time limit, before test `assert loop(1) == 1` finished."
    )


def test_a_code_that_does_not_load_is_one_load_error() -> None:
    tests = AssertTests(asserts=["assert f(1) == 1"])
    signals = extract_code_signals(run_tests("def f(x)\n    return x\n", tests), tests, "f")
    (error,) = signals.exceptions
    assert (error.during, error.test, error.line, error.text) == (None, None, 1, "def f(x)")
    assert signals.unfinished is None and signals.failed_cases == []
    assert signals.render() == (
        "Loading the code raised SyntaxError: expected ':' (<implementation>, line 1) "
        "at line 1 of the implementation: `def f(x)`."
    )


def test_signals_of_several_tests_render_in_test_order() -> None:
    tests = AssertTests(asserts=["assert inverse(4) == 1", "assert inverse(0) == 0", "assert not inverse(1)"])
    signals = extract_code_signals(run_tests(INVERSE, tests), tests, "inverse")
    assert signals.render().splitlines() == [
        "Test `assert inverse(4) == 1` failed: inverse(4) returned 0.25, expected 1.",
        (
            "Test `assert inverse(0) == 0` raised ZeroDivisionError: division by zero "
            "at line 3 of the implementation: `return y / x`."
        ),
        "Test `assert not inverse(1)` failed: inverse(1) returned 1.0, expected a false value.",
    ]


def test_a_call_that_is_not_compared_is_found_inside_the_assert() -> None:
    problem = PROBLEMS["HumanEval/2"]  # truncate_number
    tests = AssertTests(asserts=["assert abs(truncate_number(3.5) - 0.5) < 1e-6"])
    signals = extract_code_signals(run_tests(problem.prompt + "    return number\n", tests), tests, "truncate_number")
    (failed,) = signals.failed_asserts
    assert (failed.call, failed.inputs, failed.call_is_compared) == ("truncate_number(3.5)", ["3.5"], False)
    assert (failed.actual, failed.operator, failed.expected) == ("3.0", "<", "1e-06")
    assert signals.render().endswith("failed: the left side was 3.0, expected < 1e-06.")


def test_a_check_script_failure_calls_the_candidate_at_its_line() -> None:
    tests = CheckScript(script=HAS_CLOSE.test, entry_point=HAS_CLOSE.entry_point)
    signals = extract_code_signals(
        run_tests(HAS_CLOSE.prompt + "    return False\n", tests), tests, "has_close_elements"
    )
    (failed,) = signals.failed_asserts
    assert failed.call == "candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)"
    assert failed.line is not None and failed.source in HAS_CLOSE.test.splitlines()[failed.line - 1]


def test_a_passing_run_has_no_signal() -> None:
    tests = AssertTests(asserts=["assert inverse(2) == 0.5"])
    signals = extract_code_signals(run_tests(INVERSE, tests), tests, "inverse")
    assert not signals.has_failures and signals.render() == ""


def test_a_verdict_of_other_tests_is_refused() -> None:
    verdict = run_tests(INVERSE, AssertTests(asserts=["assert inverse(2) == 0.5"]))
    with pytest.raises(ValueError, match="do not match"):
        extract_code_signals(verdict, AssertTests(asserts=["assert inverse(4) == 0.25"]), "inverse")


def test_inputs_are_reprs_of_literals_and_keywords_keep_their_names() -> None:
    checked = checked_call('assert count(  "ab", k=2, items=[x, 1]) == 1', "count")
    assert checked.call == 'count(  "ab", k=2, items=[x, 1])'
    assert checked.inputs == ["'ab'", "k=2", "items=[x, 1]"]


def test_an_assert_that_never_calls_the_function_has_no_call() -> None:
    assert checked_call("assert math.fabs(poly(xs, solution)) < 1e-4", "find_zero").call is None
    assert checked_call("assert f(1 ==", "f") == CheckedCall(source="assert f(1 ==", call=None, inputs=[])
