"""HumanEval's diagnosis rules on planted cases: the category from the sandbox's outcomes (a wrong internal test only
when the code passes every hidden test), the input classes of a call, what a reflection claims, and a bad line refused
naming its field. One line goes through the real sandbox."""

from __future__ import annotations

import re
from typing import Any

import pytest

from envs.humaneval import load_problems
from harness.domains.humaneval.diagnosis import line_diagnosis
from harness.domains.humaneval.diagnosis_claims import reflection_claims
from harness.domains.humaneval.diagnosis_trial import FailedCode
from harness.domains.humaneval.diagnosis_truth import code_truth, input_classes
from harness.domains.humaneval.hidden_tests import TestOutcome, hidden_tests
from harness.domains.registry import domain_spec

PROBLEMS = {problem.task_id: problem for problem in load_problems()}
SORTED = PROBLEMS["HumanEval/126"]  # is_sorted: 13 hidden tests, test 7 the empty list, 10 and 11 duplicates
FEEDBACK = "Tested passed:\n\nTests failed:\nassert is_sorted([1, 2, 2, 3]) == False # output: True"


def outcomes(failing: dict[int, dict[str, Any]]) -> tuple[TestOutcome, ...]:
    tests = hidden_tests(SORTED)
    return tuple(
        TestOutcome(number=t.number, source=t.source, **failing.get(t.number, {"outcome": "passed"})) for t in tests
    )


def code(failing: dict[int, dict[str, Any]], reference_fails: bool = False) -> FailedCode:
    internal = "assert is_sorted([1, 2, 2, 3]) == False"
    reference = TestOutcome(number=1, source=internal, outcome="failed" if reference_fails else "passed")
    return FailedCode(SORTED, "def is_sorted(lst): return True", FEEDBACK, outcomes(failing), (reference,))


def truth(failing: dict[int, dict[str, Any]], reference_fails: bool = False):  # type: ignore[no-untyped-def]
    found = code(failing, reference_fails)
    return code_truth(found.problem, found.hidden, found.reference)


def test_the_category_is_the_first_failing_hidden_test() -> None:
    wrong = truth({10: {"outcome": "failed", "actual": "True"}, 11: {"outcome": "error", "error_type": "IndexError"}})
    assert (wrong.category, wrong.decisive_step, wrong.error_steps) == ("wrong_result", 10, [10, 11])
    assert wrong.facts["decisive_classes"] == ["duplicates"]
    assert truth({7: {"outcome": "error", "error_type": "IndexError"}}).category == "exception"
    assert truth({3: {"outcome": "timeout"}}).category == "timeout"


def test_a_wrong_internal_test_is_the_cause_only_when_the_code_is_right() -> None:
    right = truth({}, reference_fails=True)
    assert (right.category, right.decisive_step) == ("wrong_internal_test", None)
    both = truth({10: {"outcome": "failed", "actual": "True"}}, reference_fails=True)
    assert both.category == "wrong_result" and both.facts["internal_test_wrong"]
    assert truth({}).category == "other"


@pytest.mark.parametrize(
    ("source", "classes"),
    [
        ("assert candidate([]) == []", ["empty"]),
        ("assert candidate([5]) == True", ["single"]),
        ("assert candidate([1, -2, 0, 2, 2]) == 1", ["zero", "negative", "duplicates"]),
        ("assert candidate('Hello World', 1.5) == 2", ["float", "mixed_case", "spaces"]),
        ("assert candidate(list(range(20))) == 2", []),  # no literal: no class
    ],
)
def test_input_classes_are_read_from_literal_arguments(source: str, classes: list[str]) -> None:
    assert input_classes(source) == classes


def test_what_a_reflection_claims() -> None:
    found = code({7: {"outcome": "failed", "actual": "False"}, 10: {"outcome": "failed", "actual": "True"}})
    named = reflection_claims(found, "The function does not handle an empty list: it returns the wrong value there.")
    assert named.cause == "wrong_result" and named.claimed_steps == [7] and not named.confabulated
    test = reflection_claims(found, "The test itself is wrong: [1, 2, 2, 3] is sorted, so it should expect True.")
    assert test.cause == "wrong_internal_test"
    invented = reflection_claims(found, "It returned 42 and raised a ZeroDivisionError in `lst.sort(key=abs)`.")
    assert {c.text for c in invented.claims if c.confabulated} == {"returned 42", "ZeroDivisionError", "lst.sort(key=abs)"}
    seen = reflection_claims(found, "The code returned True for [1, 2, 2, 3] because `return True` ignores the list.")
    assert not seen.confabulated


@pytest.mark.parametrize(
    ("reflection", "steps"),
    [
        ("It fails with a list index out of range error on the second element.", [7]),
        ("It reads past the end: the index is out of the bounds of the list.", [7]),
        ("It raises an IndexError on the second element.", [7]),
        ("It fails with a division by zero on the second element.", []),
        ("It fails because the value could not convert to a float, a ValueError.", []),
        ("To avoid an index out of range error, we should check the length first.", []),
    ],
)
def test_an_exception_is_named_by_its_type_or_its_message(reflection: str, steps: list[int]) -> None:
    """Version 5: "list index out of range" names IndexError as the type's name does; a proposal names nothing."""
    raised = code({7: {"outcome": "error", "error_type": "IndexError", "message": "list index out of range"}})
    assert reflection_claims(raised, reflection).claimed_steps == steps


def test_a_bad_line_is_refused_naming_its_field() -> None:
    good = {"domain": "humaneval", "task": "HumanEval/126", "prompt": SORTED.prompt, "implementation": "x = 1",
            "feedback": FEEDBACK, "reflection": "r"}  # fmt: skip
    for change, field in [({"task": "HumanEval/999"}, "task"), ({"implementation": None}, "implementation"),
                          ({"feedback": 3}, "feedback"), ({"reflection": ["r"]}, "reflection")]:  # fmt: skip
        with pytest.raises(ValueError, match=re.escape(f"`{field}`")):
            line_diagnosis({**good, **change})


def test_a_line_goes_through_the_sandbox_and_the_spec() -> None:
    spec = domain_spec("humaneval")
    assert spec.truth is not None and spec.claims is not None and spec.line_diagnosis is not None
    line = {"domain": "humaneval", "task": "HumanEval/126", "prompt": SORTED.prompt, "feedback": FEEDBACK,
            "implementation": SORTED.prompt + "    return lst == sorted(lst)\n",
            "reflection": "It fails when the list has duplicates, like [1, 2, 2, 3]."}  # fmt: skip
    truth_, claims = spec.line_diagnosis.load()(line)
    assert (truth_.category, truth_.decisive_step) == ("wrong_result", 10)
    assert 10 in claims.claimed_steps and claims.rule.startswith("humaneval-claims/")
