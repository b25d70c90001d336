"""Provenance: every rule keeps the critiques that made it (what they read, the raw answer, each count change)."""

from __future__ import annotations

import json
import random
from typing import Any

from harness.records.insights import Critique, ExperienceTask, InsightsLedger, ReflectionRef, TrialRef
from harness.reflection.insights import InsightsOptions, apply_answer, extract, plan_critiques, replay
from tests.runner import ROOT

COMPARE = Critique(
    kind="compare", tasks=["mug"], trials=[TrialRef(task_id="mug", trial=2), TrialRef(task_id="mug", trial=0)],
    reflections=[ReflectionRef(task_id="mug", trial=0, text="I forgot to clean the mug 1.")],
)
CHUNK = Critique(kind="all_success", tasks=["egg", "mug"],
                 trials=[TrialRef(task_id="egg", trial=0), TrialRef(task_id="mug", trial=2)])
ANSWERS = [
    (COMPARE, "ADD 1: Clean the object before placing it.\nADD 2: Open the fridge first."),
    (CHUNK, "AGREE 1: Clean the object before placing it.\nREMOVE 2: Open the fridge first."),
    (CHUNK, "EDIT 1: Clean the object at the sinkbasin before placing it.\nREMOVE 2: Open the fridge first."),
    (COMPARE, "EDIT 2: Clean the object at the sinkbasin before placing it. Always."),
]


def test_a_rule_keeps_every_change_with_its_critique_and_raw_answer() -> None:
    ledger = replay(ANSWERS)
    (rule,) = ledger.rules
    assert (rule.text, rule.count) == ("Clean the object at the sinkbasin before placing it.", 5)
    assert [(c.step, c.operation.label, c.applied.label, c.delta, c.count) for c in rule.changes] == [
        (0, "ADD", "ADD", 2, 2), (1, "AGREE 1", "AGREE 1", 1, 3), (2, "EDIT 1", "EDIT 1", 1, 4),
        # An EDIT whose text holds an existing rule counts as AGREE of that rule, its own words lost.
        (3, "EDIT 2", "AGREE 1", 1, 5),
    ]
    assert rule.changes[2].previous_text == "Clean the object before placing it."
    assert [c.raw_answer for c in rule.changes] == [raw for _, raw in ANSWERS]
    assert [c.critique for c in rule.changes] == [critique for critique, _ in ANSWERS]
    assert rule.reflections() == COMPARE.reflections


def test_a_dropped_rule_keeps_its_history_and_every_step_is_kept() -> None:
    ledger = replay(ANSWERS)
    (dropped,) = ledger.dropped
    assert dropped.text == "Open the fridge first."
    assert [(c.step, c.delta, c.count) for c in dropped.changes] == [(0, 2, 2), (1, -1, 1), (2, -1, 0)]
    assert [len(step.operations) for step in ledger.steps] == [2, 2, 2, 1]
    assert ledger.steps[2].rules == [("Clean the object at the sinkbasin before placing it.", 4)]


def test_an_answer_that_changes_nothing_is_still_a_step() -> None:
    ledger = replay([*ANSWERS, (CHUNK, "I have nothing to add")])
    assert ledger.steps[-1].operations == [] and ledger.steps[-1].rules == ledger.steps[-2].rules


def test_the_full_list_is_judged_on_the_list_the_critic_was_shown() -> None:
    adds = "\n".join(f"ADD {i}: Rule {i}." for i in range(1, 6))
    answers = [adds, "REMOVE 1: Rule 1.", "ADD 6: Rule 6.", "REMOVE 1: Rule 2."]
    ledger = replay([(CHUNK, answer) for answer in answers], max_num_rules=1)
    assert [(s.prompt_full, s.list_full) for s in ledger.steps] == [(False, False), (True, False), (True, False),
                                                                    (True, True)]
    assert [r.text for r in ledger.dropped] == ["Rule 2."]
    assert ledger.dropped[0].changes[-1].delta == -3


def test_edit_zero_on_an_empty_list_is_dropped_and_said_in_the_record() -> None:
    # ExpeL's update_rules fails here; the harness drops it as it drops an EDIT past the end (docs/insights.md).
    ledger = replay([(CHUNK, "EDIT 0: Nothing to edit.\nADD 1: A rule of its own."), (CHUNK, "EDIT 0: The last.")])
    first, second = ledger.steps
    assert [o.label for o in first.screened_out] == ["EDIT 0"] and first.rules == [("A rule of its own.", 2)]
    assert second.screened_out == [] and ledger.rules[0].text == "The last."


def test_replay_of_the_answers_extract_got_is_the_same_ledger_and_it_survives_json() -> None:
    golden: dict[str, Any] = json.loads((ROOT / "tests/fixtures/insights/golden_critiques.json").read_text("utf-8"))
    scenario = golden["scenarios"][1]
    tasks = [ExperienceTask(id=t["id"], task=t["task"], trials=t["trials"]) for t in scenario["tasks"]]
    options = InsightsOptions(max_num_rules=scenario["max_num_rules"], read_reflections=True)
    planned = plan_critiques([tasks[i] for i in scenario["training"]], "hotpotqa", random.Random(scenario["seed"]),
                             options)
    answers = iter(call["answer"] for call in scenario["calls"])
    ledger = extract(planned, lambda _: next(answers), "hotpotqa", options.max_num_rules)
    again = replay(((s.critique, s.raw_answer) for s in ledger.steps), options.max_num_rules)
    assert again == ledger
    assert InsightsLedger.model_validate_json(ledger.model_dump_json()) == ledger
    # With the reflections read, a rule traces back to the reflections of the critiques that shaped it.
    traced = {r.text for rule in ledger.rules for r in rule.reflections()}
    assert traced and all(text.startswith("I answered wrong answer") for text in traced)


def test_apply_answer_leaves_the_ledger_it_was_given_alone() -> None:
    empty = InsightsLedger(max_num_rules=20)
    after = apply_answer(empty, COMPARE, ANSWERS[0][1])
    assert empty.rules == [] and empty.steps == [] and len(after.rules) == 2
