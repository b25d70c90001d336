"""The hidden tests of check() run one by one in the real sandbox: each test's own outcome, the set-up in its place,
a hang or a load error reported per test, and the agent's tests on the reference solution."""

from __future__ import annotations

from envs.humaneval import load_problems
from envs.sandbox import SandboxLimits
from harness.domains.humaneval.hidden_tests import (
    failed_internal_tests,
    hidden_tests,
    run_hidden,
    run_on_reference,
    split_check,
)

PROBLEMS = {problem.task_id: problem for problem in load_problems()}


def test_check_is_split_into_its_tests_and_their_set_up() -> None:
    tests = [t.source for t in hidden_tests(PROBLEMS["HumanEval/151"])]
    assert len(tests) == 7 and all("candidate(" in t for t in tests)  # the two assignments are set-up
    _, body = split_check(PROBLEMS["HumanEval/151"])
    assert [n for _, n in body if n is None] and any(s.startswith("lst = ") for s, n in body if n is None)
    (loop,) = hidden_tests(PROBLEMS["HumanEval/32"])  # a loop of asserts is one test
    assert loop.source.startswith("for ")
    assert not any("assert True" in t.source for t in hidden_tests(PROBLEMS["HumanEval/115"]))


def test_each_hidden_test_reports_on_its_own() -> None:
    problem = PROBLEMS["HumanEval/151"]
    assert {o.outcome for o in run_hidden(problem, problem.prompt + problem.canonical_solution)} == {"passed"}
    wrong = run_hidden(problem, problem.prompt + "    return 0\n")
    assert [o.outcome for o in wrong] == ["passed", "failed", "passed", "passed", "passed", "failed", "failed"]
    assert wrong[1].actual == "0" and wrong[1].result_text() == "failed: returned 0"


def test_a_hang_is_the_hanging_tests_and_the_rest_still_run() -> None:
    problem = PROBLEMS["HumanEval/24"]
    code = problem.prompt + "    if n == 7:\n        while True:\n            pass\n    return 1\n"
    outcomes = run_hidden(problem, code, SandboxLimits(timeout_s=1))
    assert [o.outcome for o in outcomes] == ["passed", "timeout", "failed", "failed", "failed"]


def test_code_that_does_not_load_fails_every_test_with_its_error() -> None:
    problem = PROBLEMS["HumanEval/24"]
    outcomes = run_hidden(problem, "def largest_divisor(n:\n")
    assert {(o.outcome, o.error_type) for o in outcomes} == {("error", "SyntaxError")}
    missing = run_hidden(problem, "def something_else(n):\n    return 1\n")
    assert {o.error_type for o in missing} == {"NameError"}


def test_the_agents_tests_run_on_the_reference() -> None:
    feedback = (
        "Tested passed:\n\nTests failed:\nassert largest_divisor(7) == 7 # output: 1\n"
        "self.assertEqual(largest_divisor(10), 5) # output: name 'self' is not defined"
    )
    tests = [test for test, _ in failed_internal_tests(feedback)]
    assert tests == ["assert largest_divisor(7) == 7", "self.assertEqual(largest_divisor(10), 5)"]
    outcomes = run_on_reference(PROBLEMS["HumanEval/24"], tests)
    assert [(o.outcome, o.error_type) for o in outcomes] == [("failed", None), ("error", "NameError")]
    assert run_on_reference(PROBLEMS["HumanEval/24"], ["assert largest_divisor(10) == 5"])[0].outcome == "passed"
