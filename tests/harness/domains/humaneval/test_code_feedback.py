"""Each internal test run on its own in the real sandbox, and the feedback about it: Reflexion's (judged by the
goldens) and the repr option."""

from __future__ import annotations

import json

import pytest

from envs.humaneval import load_problems
from harness.domains.humaneval.feedback import feedback_text, internal_signals, run_internal_tests
from envs.sandbox import SandboxLimits
from tests.runner import ROOT

HAS_CLOSE = next(p for p in load_problems() if p.task_id == "HumanEval/0")
GOLDEN = json.loads((ROOT / "tests" / "fixtures" / "reflexion_golden" / "humaneval_feedback.json").read_text())
LIMITS = SandboxLimits(timeout_s=5)


@pytest.mark.parametrize("case", GOLDEN, ids=[c["implementation"].splitlines()[-1].strip() for c in GOLDEN])
def test_feedback_is_what_the_original_executor_wrote(case: dict) -> None:
    run = run_internal_tests(case["implementation"], case["tests"], LIMITS)
    assert feedback_text(run, "reflexion") == case["feedback"]
    assert run.passed == case["is_passing"]
    assert [verdict.passed for verdict in run.verdicts] == case["state"]


def test_a_string_is_printed_with_str_and_an_assert_without_comparison_gets_the_lookup_error() -> None:
    tests = ["assert f(1) == 'b'", "assert not f(1)", "assert f(2)"]
    run = run_internal_tests("def f(x):\n    return 'a' if x == 1 else ''", tests, LIMITS)
    assert feedback_text(run, "reflexion") == (
        "Tested passed:\n\nTests failed:\nassert f(1) == 'b' # output: a\n"
        "assert not f(1) # output: 'UnaryOp' object has no attribute 'left'\n"
        "assert f(2) # output: 'Call' object has no attribute 'left'"
    )
    assert feedback_text(run, "repr").startswith("Tested passed:\n\nTests failed:\nassert f(1) == 'b' # output: 'a'\n")


def test_typing_names_are_there_as_in_the_original_executor() -> None:
    run = run_internal_tests("def f(x: List[int]) -> Optional[int]:\n    return x[0]", ["assert f([3]) == 3"], LIMITS)
    assert run.passed


def test_a_test_that_hangs_times_out_alone_and_the_others_still_run() -> None:
    tests = ["assert loop(1) == 1", "assert loop(0) == 0", "assert loop(0) == 5"]
    run = run_internal_tests("def loop(x):\n    while x:\n        pass\n    return x", tests, SandboxLimits(timeout_s=1))
    assert feedback_text(run, "reflexion") == (
        "Tested passed:\nassert loop(0) == 0\n\n"
        "Tests failed:\nassert loop(1) == 1 # output: TIMEOUT\nassert loop(0) == 5 # output: 0"
    )
    signals = internal_signals(run, "loop")
    assert signals.timeout and signals.unfinished is not None and signals.unfinished.source == tests[0]
    assert [(f.test, f.actual) for f in signals.failed_asserts] == [(2, "0")]


def test_an_exception_is_its_message_alone_or_type_and_message_under_repr() -> None:
    tests = ["assert inverse(0) == 0", "assert inverse(2) == 0.5"]
    run = run_internal_tests("def inverse(x):\n    return 1 / x", tests, LIMITS)
    failed = "\n\nTests failed:\nassert inverse(0) == 0 # output: "
    assert feedback_text(run, "reflexion") == "Tested passed:\nassert inverse(2) == 0.5" + failed + "division by zero"
    assert feedback_text(run, "repr").endswith(failed + "ZeroDivisionError: division by zero")
    [error] = internal_signals(run, "inverse").exceptions
    assert (error.test, error.type, error.line) == (0, "ZeroDivisionError", 2)


def test_code_that_does_not_load_fails_every_test_and_is_one_signal() -> None:
    run = run_internal_tests("def f(x)\n    return x", ["assert f(1) == 1", "assert f(2) == 2"], LIMITS)
    assert not run.passed and run.status == "error"
    assert feedback_text(run, "reflexion").count("# output: expected ':'") == 2
    assert [e.test for e in internal_signals(run, "f").exceptions] == [None]


def test_without_tests_the_run_passes_with_empty_feedback() -> None:
    run = run_internal_tests("def f():\n    return 1", [], LIMITS)
    assert run.passed and run.status == "no_tests"
    assert feedback_text(run, "reflexion") == "Tested passed:\n\nTests failed:"
