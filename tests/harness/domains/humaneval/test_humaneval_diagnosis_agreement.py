"""HumanEval's diagnosis rules against reflections labelled by reading (tests/fixtures/diagnosis/humaneval/): the dev
split and v1's held-out split the rules were written on, and the held-out split labelled after v2 was frozen, each
item read with the sandbox evidence stored with it. The README's tables are these figures; a sample of the evidence
is run again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs.humaneval import load_problems
from harness.domains.humaneval.hidden_tests import failed_internal_tests, run_hidden, run_on_reference
from tests.fixtures.diagnosis.agreement import (
    decisive_agreement,
    markdown,
    measures,
    scored,
    second_reader,
    second_reader_markdown,
    second_reader_measures,
)

HERE = Path(__file__).resolve().parents[3] / "fixtures" / "diagnosis" / "humaneval"
# Guards against a regression, set under what each split stands at under the v6 rules (the bar for a held-out
# split is hit 0.7, confabulated 0.6).
FLOORS = {
    "dev": {"category": 0.9, "hit": 0.9, "confabulated": 0.9},
    "held_out_v1": {"category": 0.9, "hit": 0.85, "confabulated": 0.9},
    "held_out": {"category": 0.9, "hit": 0.9, "confabulated": 0.75},
    "held_out_v3": {"category": 0.9, "hit": 0.8, "confabulated": 0.75},
    # Held out from v4 (confabulated 0.47 there), read by two blind readers; v5 was written on it (README).
    "held_out_v4": {"category": 0.9, "hit": 0.7, "confabulated": 0.9},
    # Held out from v5, read by two blind readers who agree on every label: both bars met (README); v6 only adds
    # exception messages.
    "held_out_v5": {"category": 0.9, "hit": 0.9, "confabulated": 0.6},
}
CAUSES = {"wrong_internal_test", "exception", "timeout", "wrong_result", "other"}


@pytest.mark.parametrize("split", FLOORS)
def test_the_rules_agree_with_the_reading(split: str) -> None:
    found = measures("humaneval", split)
    for name, floor in FLOORS[split].items():
        kappa = found[name].kappa
        assert kappa is not None and kappa >= floor, (split, name, kappa)
    same, total = decisive_agreement("humaneval", split)
    assert same >= 0.85 * total  # held_out: three of the reader's slips (README)


def test_every_label_is_one_the_rubric_allows() -> None:
    for item in scored("humaneval"):
        label = item.label
        assert label["category"] in CAUSES and label["cause"] in CAUSES | {None}
        assert label["reason"].strip() and isinstance(label["hit"], bool)
        if label["decisive"] is None:  # the rubric's hit without a decisive test is the cause agreeing
            assert label["hit"] == (label["cause"] == label["category"] != "other"), label["id"]


def test_the_stored_evidence_is_what_the_sandbox_says() -> None:
    problems = {problem.task_id: problem for problem in load_problems()}
    items = [json.loads(line) for line in (HERE / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    sample = {item["task"]: item for item in items}  # one item of each problem
    for item in list(sample.values())[:3]:
        problem = problems[item["task"]]
        hidden = [o.model_dump(exclude_none=True) for o in run_hidden(problem, item["implementation"])]
        internal = [test for test, _ in failed_internal_tests(item["feedback"])]
        reference = [o.model_dump(exclude_none=True) for o in run_on_reference(problem, internal)]
        assert (hidden, reference) == (item["evidence"]["hidden"], item["evidence"]["reference"]), item["id"]


def test_the_readme_holds_these_tables() -> None:
    assert markdown("humaneval") in (HERE / "README.md").read_text(encoding="utf-8")


def test_a_blind_second_reader_agrees_on_category_and_hit_and_the_readme_says_where_it_does_not() -> None:
    """Reader C never saw the rules. Category and hit hold against it; confabulated stood at kappa 0.27 on the
    held-out split under version 2 and 0.82 under version 3, written on it (the README)."""
    labels = second_reader("humaneval")
    assert sorted(label["split"] for label in labels) == sorted(
        ["held_out"] * 22 + ["held_out_v1"] * 44 + ["held_out_v3"] * 37 + ["held_out_v4"] * 23
        + ["held_out_v5"] * 25
    )
    against_rules = second_reader_measures("humaneval", "held_out")["the rules"]
    assert (against_rules["category"].kappa or 0) >= 0.9 and (against_rules["hit"].kappa or 0) >= 0.9
    assert (against_rules["confabulated"].kappa or 0) >= 0.75
    assert second_reader_markdown("humaneval") in (HERE / "README.md").read_text(encoding="utf-8")
