"""Reading code out of a model's answer: Reflexion's parser (judged by the goldens) and the repairing option."""

from __future__ import annotations

import json

import pytest

from envs.humaneval import HumanEvalProblem, load_problems
from harness.domains.humaneval.extraction import MISSING_CODE, extract_implementation, reflexion_code, repaired_implementation
from envs.sandbox import AssertTests, CheckScript, run_tests
from tests.runner import ROOT

PROBLEMS = {problem.task_id: problem for problem in load_problems()}
HAS_CLOSE = PROBLEMS["HumanEval/0"]
GOLDEN_CALLS = json.loads((ROOT / "tests" / "fixtures" / "reflexion_golden" / "humaneval_messages.json").read_text())


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


def passes_check(code: str, problem: HumanEvalProblem) -> bool:
    return run_tests(code, CheckScript(script=problem.test, entry_point=problem.entry_point)).passed


# ---------------------------------------------------------------- Reflexion's parser (the default)


@pytest.mark.parametrize("call", [c for c in GOLDEN_CALLS if "parsed" in c], ids=lambda c: f"{c['task_id']}-{c['call']}")
def test_the_code_is_what_the_original_parser_kept(call: dict) -> None:
    implementation = extract_implementation(call["model_answer"], PROBLEMS[call["task_id"]])
    assert implementation.code == call["parsed"] and implementation.extracted


def test_a_python_block_wins_over_a_bare_one_and_loses_its_last_newline() -> None:
    answer = "```\nprint(1)\n```\n```python\ndef f():\n    return 1\n\n```"
    assert reflexion_code(answer) == "def f():\n    return 1\n"
    assert reflexion_code("```\ndef g():\n    return 2\n```") == "def g():\n    return 2"


def test_without_a_fence_the_first_function_is_kept_up_to_the_blank_line_after_its_return() -> None:
    answer = "Here:\ndef f(x):\n    y = x\n\n    return y\n\nprint(f(1))\n"
    assert reflexion_code(answer) == "def f(x):\n    y = x\n\n    return y\n"
    # a second def before any blank line after a return: everything to the end, stripped of [/PYTHON]
    assert reflexion_code("def f():\n    pass\ndef g():\n    return 1[/PYTHON]") == "def f():\n    pass\ndef g():\n    return 1"


def test_an_answer_without_code_becomes_the_text_none_as_the_original_formats_it() -> None:
    implementation = extract_implementation("I cannot write this.", HAS_CLOSE)
    assert (implementation.code, implementation.extracted) == (MISSING_CODE, False)


# ---------------------------------------------------------------- repair (harness option)


def test_fenced_code_is_taken_from_its_block_and_passes_the_real_check() -> None:
    answer = "Sure! Here it is:\n" + fence(HAS_CLOSE.prompt + HAS_CLOSE.canonical_solution) + "\nHope this helps."
    implementation = repaired_implementation(answer, HAS_CLOSE)
    assert implementation.code == HAS_CLOSE.prompt + HAS_CLOSE.canonical_solution
    assert (implementation.extracted, implementation.body_only, implementation.indentation_repaired) == (
        True,
        False,
        False,
    )
    assert implementation.prepended == []
    assert implementation.raw == answer
    assert passes_check(implementation.code, HAS_CLOSE)


def test_the_block_defining_the_entry_point_wins_over_an_earlier_one() -> None:
    answer = fence("print('example')") + "\n\n" + fence("def has_close_elements(numbers, threshold):\n    return True")
    assert "return True" in repaired_implementation(answer, HAS_CLOSE).code


def test_unfenced_code_loses_the_prose_around_it_and_gets_the_prompt_imports() -> None:
    answer = (
        "from the docstring, two numbers must be close:\n"
        "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
        "\nThis compares every pair once."
    )
    implementation = repaired_implementation(answer, HAS_CLOSE)
    assert implementation.prepended == ["from typing import List"]
    assert implementation.code == (
        "from typing import List\n\n\n"
        "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
    )
    assert passes_check(implementation.code, HAS_CLOSE)


def test_a_body_written_flush_left_under_its_def_is_reindented() -> None:
    problem = PROBLEMS["HumanEval/2"]  # truncate_number: `return number % 1.0`
    answer = fence(
        "def truncate_number(number: float) -> float:\nif number < 0:\n    return -(-number % 1.0)\nreturn number % 1.0"
    )
    implementation = repaired_implementation(answer, problem)
    assert implementation.indentation_repaired
    assert implementation.code == (
        "def truncate_number(number: float) -> float:\n"
        "    if number < 0:\n        return -(-number % 1.0)\n    return number % 1.0\n"
    )
    assert passes_check(implementation.code, problem)


def test_a_first_body_line_flush_left_is_indented_alone() -> None:
    problem = PROBLEMS["HumanEval/2"]
    answer = fence(
        "def truncate_number(number: float) -> float:\nif number < 0:\n        return -(-number % 1.0)\n    return number % 1.0"
    )
    implementation = repaired_implementation(answer, problem)
    assert implementation.indentation_repaired
    assert passes_check(implementation.code, problem)


def test_a_bare_body_completes_the_prompt() -> None:
    implementation = repaired_implementation(HAS_CLOSE.canonical_solution, HAS_CLOSE)
    assert implementation.body_only and implementation.extracted
    assert implementation.code == HAS_CLOSE.prompt + HAS_CLOSE.canonical_solution
    assert passes_check(implementation.code, HAS_CLOSE)


def test_missing_helpers_of_the_prompt_are_prepended() -> None:
    problem = PROBLEMS["HumanEval/10"]  # make_palindrome calls the prompt's is_palindrome
    answer = fence("def make_palindrome(string: str) -> str:\n" + problem.canonical_solution.rstrip("\n"))
    implementation = repaired_implementation(answer, problem)
    assert [line.split("(")[0] for line in implementation.prepended] == ["def is_palindrome"]
    assert passes_check(implementation.code, problem)


def test_an_answer_without_code_is_passed_on_raw_and_flagged() -> None:
    answer = "I am not able to write this function, sorry."
    implementation = repaired_implementation(answer, HAS_CLOSE)
    assert (implementation.code, implementation.extracted) == (answer, False)
    verdict = run_tests(implementation.code, AssertTests(asserts=["assert has_close_elements([], 1.0) == False"]))
    assert verdict.load_error is not None and verdict.load_error.type == "SyntaxError"
    assert not repaired_implementation("  \n", HAS_CLOSE).extracted


def test_code_that_does_not_compile_is_kept_for_the_sandbox_to_judge() -> None:
    answer = fence("def has_close_elements(numbers, threshold):\n    return any(")  # cut off at max_tokens
    implementation = repaired_implementation(answer, HAS_CLOSE)
    assert implementation.extracted and not implementation.indentation_repaired
    assert "def has_close_elements(numbers, threshold):" in implementation.code
