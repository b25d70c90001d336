"""The parser and the counting give exactly what ExpeL's own parse_rules and update_rules gave on the same answers
(tests/fixtures/insights/README.md says how the golden lists were computed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.records.insights import Rule
from harness.reflection.insights import parse_operations, update_rules
from tests.runner import ROOT

GOLDEN: dict[str, Any] = json.loads((ROOT / "tests/fixtures/insights/golden_rules.json").read_text(encoding="utf-8"))
ANSWERS: dict[str, str] = GOLDEN["answers"]


def _rules(pairs: list[list[Any]]) -> list[Rule]:
    return [Rule(text=text, count=count) for text, count in pairs]


def _pairs(rules: list[Rule]) -> list[list[Any]]:
    return [[rule.text, rule.count] for rule in rules]


def _outcome(start: list[list[Any]], answer: str, list_full: bool) -> Any:
    return _pairs(update_rules(_rules(start), parse_operations(answer), list_full))


def test_the_golden_data_is_the_size_the_readme_says() -> None:
    assert len(ANSWERS) >= 30
    assert len(GOLDEN["parse"]) == len(ANSWERS) and len(GOLDEN["update"]) == len(ANSWERS)


@pytest.mark.parametrize("name", sorted(GOLDEN["parse"]))
def test_an_answer_parses_as_expel_parsed_it(name: str) -> None:
    assert [[op.label, op.text] for op in parse_operations(ANSWERS[name])] == GOLDEN["parse"][name]


@pytest.mark.parametrize("list_full", ["not_full", "list_full"])
@pytest.mark.parametrize("name", sorted(GOLDEN["update"]))
def test_an_answer_counts_on_five_rules_as_expel_counted_it(name: str, list_full: str) -> None:
    expected = GOLDEN["update"][name][list_full]
    assert _outcome(GOLDEN["base_rules"], ANSWERS[name], list_full == "list_full") == expected


@pytest.mark.parametrize("sequence", GOLDEN["sequences"], ids=lambda s: s["name"])
def test_a_sequence_of_answers_counts_as_expel_counted_it(sequence: dict[str, Any]) -> None:
    rules = sequence["start"]
    for step in sequence["steps"]:
        # ExpeL's list_full: max_num_rules (20) + 5 rules or more before the step.
        assert step["list_full"] == (20 + 5 <= len(rules))
        outcome = _outcome(rules, ANSWERS[step["answer"]], step["list_full"])
        if "error" in step:
            # ExpeL fails on EDIT 0 over an empty list; the harness drops that operation (docs/insights.md).
            assert step["error"] == "IndexError" and rules == [] and ANSWERS[step["answer"]].startswith("EDIT 0")
            assert outcome == []
            return
        assert outcome == step["rules"], step["answer"]
        rules = outcome


def test_counting_leaves_its_input_alone() -> None:
    # ExpeL's update_rules rewrites the caller's lists in place; this one returns new rules.
    start = _rules(GOLDEN["base_rules"])
    operations = parse_operations(ANSWERS["all_four_ops"])
    update_rules(start, operations, list_full=True)
    assert _pairs(start) == GOLDEN["base_rules"]
