"""HumanEval's confabulation claims (rubric version 3, rules version 5) on planted cases, each said both ways: a
statement about the attempt's code that the code does not hold is confabulated, the same statement where the code holds
it, or where the reflection proposes or supposes it, or speaks of code it offers, is not."""

from __future__ import annotations

import pytest

from envs.humaneval import load_problems
from harness.domains.humaneval.diagnosis_claims import reflection_claims
from harness.domains.humaneval.diagnosis_trial import FailedCode

PROBLEM = {problem.task_id: problem for problem in load_problems()}["HumanEval/2"]  # truncate_number(number)
FOR_LOOP = "def truncate_number(number: float) -> float:\n    for digit in str(number):\n        pass\n    return number - int(number)\n"
WHILE_LOOP = "def truncate_number(number: float) -> float:\n    while number >= 1:\n        number -= 1\n    return number\n"
FEEDBACK = "Tested passed:\n\nTests failed:\nassert truncate_number(3.5) == 0.5 # output: 0.0"


def confabulated(reflection: str, implementation: str = FOR_LOOP, feedback: str = FEEDBACK) -> list[str]:
    code = FailedCode(PROBLEM, implementation, feedback, (), ())
    return [claim.means for claim in reflection_claims(code, reflection).claims if claim.confabulated]


@pytest.mark.parametrize(
    ("reflection", "implementation", "expected"),
    [
        ("The implementation uses a while loop to strip the integer part.", FOR_LOOP, True),
        ("The implementation uses a while loop to strip the integer part.", WHILE_LOOP, False),
        ("The implementation should use a while loop to strip the integer part.", FOR_LOOP, False),
        ("```python\ndef f(n):\n    return n\n```\nIt uses a while loop, which is faster.", FOR_LOOP, False),
        ("The original code uses a ternary operator for the sign.", FOR_LOOP, True),
        ("The implementation attempts to access the `left` attribute of the number.", FOR_LOOP, True),
        ("The implementation attempts to access the `digit` variable too early.", FOR_LOOP, False),
        ("The variable 'number' was not defined anywhere in the implementation.", FOR_LOOP, True),
        ("The variable 'fraction' was not defined anywhere in the implementation.", FOR_LOOP, False),
        ('At line 4 of the implementation: "return number - int(number)" the sign is lost.', FOR_LOOP, False),
        ('At line 4 of the implementation: "return number - round(number)" the sign is lost.', FOR_LOOP, True),
        ("In this case, the function is called 4 times and each time returns 1.", FOR_LOOP, True),
        ("The test result was:\n```python\nassert truncate_number(2.25) == 0.25\n```", FOR_LOOP, True),
        ("The test result was:\n```python\nassert truncate_number(3.5) == 0.5\n```", FOR_LOOP, False),
        ("In the provided unit test, an empty string is tested, but the function returns 0.", FOR_LOOP, True),
        ("Here is a bit of code with an infinite loop:\n```python\nwhile True:\n    pass\n```", FOR_LOOP, False),
        ("The loop never terminates, so the test times out.", FOR_LOOP, True),
    ],
)
def test_a_statement_about_the_code_is_confabulated_only_where_the_code_does_not_hold_it(
    reflection: str, implementation: str, expected: bool
) -> None:
    found = confabulated(reflection, implementation)
    assert bool(found) is expected, found


PASSED_ONLY = "Tested passed:\nassert truncate_number(2.5) == 0.5\n\nTests failed:\n"
FAILED_TWO = "Tested passed:\nassert truncate_number(2.5) == 0.5\n\nTests failed:\nassert truncate_number(3.75) == 0.75 # output: 0.0"


@pytest.mark.parametrize(
    ("reflection", "feedback", "expected"),
    [
        ("The implementation failed the tests because it rounds the number.", PASSED_ONLY, True),
        ("The implementation failed the tests because it rounds the number.", FAILED_TWO, False),
        ("The implementation failed the test case where the input is 2.5 and 0.5 is expected.", FAILED_TWO, False),
        ("The implementation failed the test case where the input is '2.5x'.", FAILED_TWO, True),
        ("The implementation failed the test case where the input is '3.75'.", FAILED_TWO, False),
        ("The loop never ends here, so the sum is always 0.", FAILED_TWO, True),
        ("The subtraction is off, so the result is always 0.0.", FAILED_TWO, False),
        ("This is because `int` is being applied to a `Decimal` object.", FAILED_TWO, True),
        ("This is because the subtraction is being applied to a `number` object.", FAILED_TWO, False),
        ("It reads the digits one by one, thus avoiding the IndexError.", FAILED_TWO, False),
        ("It reads the digits one by one, and raises an IndexError.", FAILED_TWO, True),
    ],
)
def test_what_it_says_of_the_tests_and_the_objects_is_held_to_the_feedback_and_the_code(
    reflection: str, feedback: str, expected: bool
) -> None:
    found = confabulated(reflection, FOR_LOOP, feedback)
    assert bool(found) is expected, found


ABS = "def truncate_number(number: float) -> float:\n    return abs(number) - int(abs(number))\n"
TRIAL_DIVISION = (
    "def truncate_number(number: float) -> float:\n    for i in range(2, 5):\n        if int(number) % i == 0:\n"
    "            return 0.0\n    return number - int(number)\n"
)
PARITY = "def truncate_number(number: float) -> float:\n    if int(number) % 2:\n        return 0.0\n    return number\n"
RANGE = "def truncate_number(number: float) -> float:\n    for i in range(3, 10):\n        number -= 0\n    return number - int(number)\n"


@pytest.mark.parametrize(
    ("reflection", "implementation", "expected"),
    [
        ("The implementation does not take the absolute value of the number first.", ABS, True),
        ("The implementation does not take the absolute value of the number first.", FOR_LOOP, False),
        ("The implementation does not correctly take the absolute value of the number.", ABS, False),
        ("To fix it, the implementation should not take the absolute value of the number.", ABS, False),
        ("The code does not check if the integer part is a prime number.", TRIAL_DIVISION, True),
        ("The code does not check if the integer part is a prime number.", FOR_LOOP, False),
        ("The code does not check every divisor of the integer part, so primes slip through.", TRIAL_DIVISION, False),
        ("The code does not check if the integer part is prime.", "def truncate_number(n):\n    # Check if it is prime\n"
         "    return n - int(n)\n", False),
        ("The implementation does not sort the digits first.", "def truncate_number(n):\n    return sorted(str(n))\n", True),
        ("The implementation does not sort the digits in descending order.", "def truncate_number(n):\n"
         "    return sorted(str(n))\n", False),
        ("The implementation does not check whether the integer part is even.", PARITY, True),
        ("The implementation does not check whether the integer part is even.", FOR_LOOP, False),
        ("The loop condition in the implementation is `i < 10`, so the last digit is lost.", RANGE, False),
        ("The loop starts at `i = 3` in the implementation, so the first digits are lost.", RANGE, False),
        ("The condition in the implementation is `k < 10`, so the last digit is lost.", RANGE, True),
    ],
)
def test_an_operation_denied_or_a_loop_bound_told_is_held_to_the_code(
    reflection: str, implementation: str, expected: bool
) -> None:
    """Version 5: "does not take the absolute value" of code calling `abs` is false (a qualified denial judges how,
    which is a diagnosis); a loop variable's value or bound told in backquotes describes the loop, not code quoted."""
    found = confabulated(reflection, implementation)
    assert bool(found) is expected, found
