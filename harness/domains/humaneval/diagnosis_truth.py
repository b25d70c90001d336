"""Where a failed HumanEval trial was lost, from the sandbox: every hidden test of check() run on the implementation,
every internal test the implementation failed run on the reference solution (`hidden_tests`). Never shown to a
condition.

The units (`GroundTruth.steps`) are the hidden tests, numbered from 1 in check()'s order; `decisive_step` is the
first that fails, `error_steps` every one that fails. The category, the first that applies:

1. `wrong_internal_test`: no hidden test fails, and an internal test the implementation failed fails on the
   reference too (its expected value contradicts the docstring): the right diagnosis is "my test is wrong", nothing
   in the code needed fixing. No decisive test.
2. `exception`, `timeout`, `wrong_result`: the first failing hidden test raised (or the code did not load), ran out of
   time (or another limit stopped it), or returned a wrong value. An internal test the reference also fails does not
   change this: the code had to change either way (`facts["internal_test_wrong"]` says it).
3. `other`: nothing fails where it could be read (no hidden test fails and the failed internal tests are right: the
   hidden tests miss what they caught; or nothing ran). No decisive test.

The decisive test's input classes (`facts["decisive_classes"]`) are read from its call's literal arguments
(`input_classes`), as the rubric defines them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import Any

from envs.humaneval import HumanEvalProblem
from harness.domains.humaneval.hidden_tests import TestOutcome
from harness.domains.humaneval.signals import CHECK_PARAMETER
from harness.records.diagnosis import GroundTruth

RULE = "humaneval-truth/1"
LARGE_NUMBER = 1000
LARGE_LIST = 10
LONG_STRING = 30
"""`large`: a number of at least this absolute value, a list or tuple of at least this many elements, a string of at
least this many characters."""
INPUT_CLASSES = ("empty", "single", "zero", "negative", "float", "large", "duplicates", "mixed_case", "spaces")

_STOPPED = ("timeout", "stopped")


def _values(value: Any) -> Iterator[Any]:
    """The value and, for a list, tuple or set, its elements."""
    yield value
    if isinstance(value, (list, tuple, set, frozenset)):
        yield from value


def classes_of(value: Any) -> set[str]:
    """The input classes of one literal value (the rubric's)."""
    found: set[str] = set()
    if isinstance(value, (str, list, tuple, dict, set, frozenset)) and len(value) == 0:
        found.add("empty")
    if isinstance(value, (str, list, tuple)) and len(value) == 1:
        found.add("single")
    if isinstance(value, (list, tuple)):
        if len(value) >= LARGE_LIST:
            found.add("large")
        try:
            if len(set(value)) < len(value):
                found.add("duplicates")
        except TypeError:  # unhashable elements: lists of lists
            pass
    if isinstance(value, str):
        if len(value) >= LONG_STRING:
            found.add("large")
        if any(c.isupper() for c in value) and any(c.islower() for c in value):
            found.add("mixed_case")
        if any(c.isspace() for c in value):
            found.add("spaces")
    for item in _values(value):
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            continue
        if item == 0:
            found.add("zero")
        if item < 0:
            found.add("negative")
        if isinstance(item, float) and not item.is_integer():
            found.add("float")
        if abs(item) >= LARGE_NUMBER:
            found.add("large")
    return found


def _calls(source: str, names: set[str]) -> list[ast.Call]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names]


def input_classes(source: str, names: Sequence[str] = (CHECK_PARAMETER,)) -> list[str]:
    """The input classes of a test's calls of the function under test (`candidate`, or the names given), read from
    their literal arguments; an argument that is no literal gives none."""
    found: set[str] = set()
    for call in _calls(source, set(names)):
        for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
            try:
                value = ast.literal_eval(argument)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            found |= classes_of(value)
    return [name for name in INPUT_CLASSES if name in found]


def _category(outcome: TestOutcome) -> str:
    if outcome.outcome == "error":
        return "exception"
    if outcome.outcome in _STOPPED:
        return "timeout"
    return "wrong_result"


def code_truth(
    problem: HumanEvalProblem, hidden: Sequence[TestOutcome], reference: Sequence[TestOutcome]
) -> GroundTruth:
    """The ground truth of one failed trial from its sandbox runs: `hidden`, every hidden test on the implementation;
    `reference`, every internal test the implementation failed, on the reference solution."""
    failing = [o for o in hidden if o.outcome not in ("passed", "not_run")]
    wrong_tests = [o.source for o in reference if o.outcome != "passed"]
    facts: dict[str, str | list[str]] = {
        "failing_tests": [o.source for o in failing],
        "failing_results": [o.result_text() for o in failing],
        "internal_failed": [o.source for o in reference],
        "internal_test_wrong": wrong_tests,
    }
    common = {"domain": "humaneval", "task_id": problem.task_id, "rule": RULE, "scored": True, "steps": len(hidden)}
    if failing:
        first = failing[0]
        facts["decisive_classes"] = input_classes(first.source)
        return GroundTruth(
            **common,
            decisive_step=first.number,
            category=_category(first),
            error_steps=[o.number for o in failing],
            decisive_text=first.source,
            facts=facts,
        )
    category = "wrong_internal_test" if wrong_tests else "other"
    return GroundTruth(**common, category=category, facts=facts)
