"""HumanEval's identity rule: this problem's function, parameters, docstring words or examples, or a failure of the
known feedback (on_task); another problem's function or job (off_task); neither (vacuous)."""

from __future__ import annotations

import pytest

from harness.domains.humaneval.failures import failure_of_line, names_error_type
from harness.domains.humaneval.identity import line_identity, reflection_identity

LONGEST = "HumanEval/12"  # longest(strings): the first of the longest strings, None for an empty list
RENDERED = "Test `assert longest([]) == None` raised IndexError: list index out of range at line 5 of the implementation: `best = strings[0]`."  # noqa: E501
REFLEXION = "assert truncate_number(3.5) == 0.5 # output: 3"


def _label(text: str, task: str = LONGEST, failed_test: str | None = None) -> str:
    item = {"task": task, "text": text} | ({"failed_test": failed_test} if failed_test else {})
    identity = line_identity(item)
    for evidence in identity.evidence:
        assert text[evidence.start : evidence.end] == evidence.text
    return identity.label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("`longest` returned the last of the equally long strings instead of the first one.", "on_task"),
        ("I should return the first string of maximal length, and None when the list is empty.", "on_task"),
        # Invisible characters and fullwidth letters hide no name.
        ("My long\u200best returned the last string.", "on_task"),
        ("\uff4c\uff4f\uff4e\uff47\uff45\uff53\uff54() returned the last of the equally long strings.", "on_task"),
        # Another problem's function and parameter; another problem's job.
        ("My separate_paren_groups implementation did not ignore the spaces in paren_string.", "off_task"),
        ("It returns True as soon as the balance of the bank account falls below zero after the deposit and "
         "withdrawal operations.", "off_task"),
        # A contrast with another function while the plan is this one's job stays on task.
        ("Unlike remove_duplicates, longest must keep the first string of maximal length.", "on_task"),
        # Generic advice, language and tooling only, empty.
        ("I should test edge cases more carefully and think step by step.", "vacuous"),
        ("The function definition is not properly indented, raising an IndentationError.", "vacuous"),
        ("", "vacuous"),
    ],
)  # fmt: skip
def test_a_reflection_on_longest(text: str, label: str) -> None:
    assert _label(text) == label


def test_an_error_type_counts_only_against_the_known_feedback() -> None:
    text = "The implementation raised an IndexError because it read the first element too early."
    assert _label("It raised an IndexError.") == "vacuous"  # no feedback: an error type alone names nothing
    assert _label("It raised an IndexError.", failed_test=RENDERED) == "on_task"
    assert _label("It raised a ZeroDivisionError.", failed_test=RENDERED) == "vacuous"
    assert _label(text, failed_test=RENDERED) == "on_task"


def test_the_failed_tests_call_or_values_name_this_problem() -> None:
    assert _label("It fails on longest([]).", failed_test=RENDERED) == "on_task"
    assert _label("The call gave 3 where 0.5 was expected.", "HumanEval/2", REFLEXION) == "on_task"


def test_both_feedback_formats_are_read() -> None:
    cases, types = failure_of_line(REFLEXION, "truncate_number")
    assert [c.call for c in cases] == ["truncate_number(3.5)"] and types == {"AssertionError", "wrong result"}
    cases, types = failure_of_line(RENDERED, "longest")
    assert [c.call for c in cases] == ["longest([])"] and types == {"IndexError"}
    rendered_false = "Test `assert truncate_number(3.5) == 0.5` failed: truncate_number(3.5) returned 3, expected 0.5."
    cases, types = failure_of_line(rendered_false, "truncate_number")
    assert cases[0].actual == "3" and cases[0].expected == "0.5" and "wrong result" in types
    assert failure_of_line("IndexError: list index out of range", "longest") == ([], {"IndexError"})


def test_a_line_needs_no_feedback_and_a_problem_id() -> None:
    assert reflection_identity("longest() returned None.", LONGEST).label == "on_task"
    with pytest.raises(ValueError, match="not a HumanEval problem id"):
        line_identity({"task": "HumanEval/999", "text": "x"})
    with pytest.raises(ValueError, match="'failed_test' is the run's feedback"):
        line_identity({"task": LONGEST, "text": "x", "failed_test": 3})


def test_names_error_type_without_the_run() -> None:
    assert names_error_type("a TypeError when given None")
    assert not names_error_type("the logic is wrong in general")


WORDS_IN_SENTENCE = "HumanEval/143"  # words_in_sentence(sentence): the words whose length is prime
WORDS_STRING = "HumanEval/101"  # words_string(s): split a string of words on commas or spaces


@pytest.mark.parametrize(
    ("text", "task", "label"),
    [
        # Issue 48 item 7: "it's" once named the parameter s of words_string, and another problem's job (sum_squares:
        # square at multiples of 3, cube at multiples of 4) came out on task.
        ("It squares the number when the index is a multiple of 3, even if it's also a multiple of 4.", WORDS_STRING,
         "off_task"),
        # Unclosed delimiters and braces are the language's: "properly closed" is no parenthesis problem's job.
        ("There is an unclosed delimiter. The error message indicates a mismatch in the opening and closing braces, "
         "which needs properly closing.", "HumanEval/153", "vacuous"),
        # Another problem's function made of this problem's words is a helper for this job (is_prime for prime lengths).
        ("The nested function `is_prime` is not properly closed, causing a mismatch in the delimiters.",
         WORDS_IN_SENTENCE, "on_task"),
        ("The `is_prime` function returns True for 1.", LONGEST, "off_task"),
    ],
)  # fmt: skip
def test_clitics_tooling_and_helpers(text: str, task: str, label: str) -> None:
    assert _label(text, task) == label
