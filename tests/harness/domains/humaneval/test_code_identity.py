"""HumanEval's identity rule: a reflection names its run's failed test or error type (on_task), only errors the run
did not have or tests that passed (off_task), or neither (vacuous)."""

from __future__ import annotations

import pytest

from harness.domains.humaneval.identity import failure_of_line, names_error_type, reflection_identity
from harness.records.humaneval import FailedAssert

FAILED = FailedAssert(
    source="assert add(1, 2) == 3", call="add(1, 2)", inputs=["1", "2"], expected="3", actual="-1", operator="==",
    call_is_compared=True, test=0, line=None,
)  # fmt: skip
RUN_TYPES = {"AssertionError", "wrong result"}


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("The implementation failed add(1, 2): it subtracts instead of adding.", "on_task"),
        ("When a is 1 and b is 2 the function is wrong.", "on_task"),
        ("The expected output is 3 but the function gave -1.", "on_task"),
        ("The function returned the wrong output for small inputs.", "on_task"),
        ("An IndexError is raised when the list is empty.", "off_task"),
        ("The loop never ends: an infinite loop.", "off_task"),
        ("I should write cleaner code and think harder.", "vacuous"),
        ("", "vacuous"),
    ],
)
def test_a_reflection_against_a_false_assert(text: str, label: str) -> None:
    assert reflection_identity(text, [FAILED], RUN_TYPES).label == label


def test_an_exception_the_run_had_is_on_task_and_one_it_did_not_is_off_task() -> None:
    assert reflection_identity("It raises a ZeroDivisionError on 0.", [], {"ZeroDivisionError"}).label == "on_task"
    assert reflection_identity("It raises a zero division error on 0.", [], {"ZeroDivisionError"}).label == "on_task"
    off = reflection_identity("It raises a KeyError.", [], {"ZeroDivisionError"})
    assert off.label == "off_task" and off.deciding()[0].text == "KeyError"


def test_naming_a_test_that_passed_is_off_task() -> None:
    passed = FAILED.model_copy(update={"source": "assert add(5, 5) == 10", "call": "add(5, 5)", "inputs": ["5", "5"]})
    assert reflection_identity("It fails on add(5, 5).", [FAILED], RUN_TYPES, [passed]).label == "off_task"


def test_a_line_of_reflexion_feedback_gives_the_failed_test_and_its_output() -> None:
    cases, types = failure_of_line("assert add(1, 2) == 3 # output: -1", "add")
    assert [c.call for c in cases] == ["add(1, 2)"] and types == RUN_TYPES
    assert reflection_identity("add(1,2) gave -1", cases, types).label == "on_task"
    _, raised = failure_of_line("IndexError: list index out of range", "add")
    assert raised == {"IndexError"}


def test_names_error_type_without_the_run() -> None:
    assert names_error_type("a TypeError when given None")
    assert not names_error_type("the logic is wrong in general")
