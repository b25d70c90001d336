"""The critique requests: ExpeL's texts kept byte for byte, its order of critiques, and every request as ExpeL's own
create_rules built it on the same experience and answers (tests/fixtures/insights/golden_critiques.json)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from harness.llm import ChatMessage
from harness.llm.prompts import read_prompt
from harness.records.insights import ExperienceTask, ExperienceTrial
from harness.reflection.insights import (
    InsightsOptions,
    critique_messages,
    extract,
    plan_critiques,
    rules_message,
    success_chunks,
)
from tests.runner import ROOT

GOLDEN: dict[str, Any] = json.loads(
    (ROOT / "tests/fixtures/insights/golden_critiques.json").read_text(encoding="utf-8")
)
CONSTANTS: dict[str, str] = GOLDEN["constants"]
SCENARIOS = GOLDEN["scenarios"]
FILES = {
    "expel/system.txt": "templates/system.py:system_template",
    "expel/ai_name_rules.txt": "agent/expel.py:_build_critique_prompt ai_name (existing rules)",
    "expel/format_rules_operation.txt": "templates/human.py:FORMAT_RULES_OPERATION_TEMPLATE",
    "expel/suffix_full.txt": "templates/human.py:CRITIQUE_SUMMARY_SUFFIX[full]",
    "expel/suffix_not_full.txt": "templates/human.py:CRITIQUE_SUMMARY_SUFFIX[not_full]",
    **{f"expel/{d}/compare_instruction.txt": f"{d}:SYSTEM_CRITIQUE_EXISTING_RULES_INSTRUCTION"
       for d in ("alfworld", "hotpotqa")},
    **{f"expel/{d}/all_success_instruction.txt": f"{d}:SYSTEM_CRITIQUE_ALL_SUCCESS_EXISTING_RULES_INSTRUCTION"
       for d in ("alfworld", "hotpotqa")},
    **{f"expel/{d}/reflection_prefix.txt": f"{d}:REFLECTION_PREFIX" for d in ("alfworld", "hotpotqa")},
    **{f"expel/{d}/rule_template.txt": f"templates/human.py:RULE_TEMPLATE[{d}]" for d in ("alfworld", "hotpotqa")},
}


def _tasks(scenario: dict[str, Any]) -> list[ExperienceTask]:
    return [ExperienceTask(id=t["id"], task=t["task"], trials=t["trials"]) for t in scenario["tasks"]]


def _training(scenario: dict[str, Any]) -> list[ExperienceTask]:
    tasks = _tasks(scenario)
    return [tasks[i] for i in scenario["training"]]


def _options(scenario: dict[str, Any], read_reflections: bool = False) -> InsightsOptions:
    return InsightsOptions(max_num_rules=scenario["max_num_rules"],
                           success_critique_num=scenario["success_critique_num"], read_reflections=read_reflections)


def _run(scenario: dict[str, Any], read_reflections: bool = False) -> tuple[list[list[ChatMessage]], Any]:
    options = _options(scenario, read_reflections)
    planned = plan_critiques(_training(scenario), scenario["domain"], random.Random(scenario["seed"]), options)
    asked: list[list[ChatMessage]] = []

    def ask(messages: list[ChatMessage]) -> str:
        asked.append(messages)
        return scenario["calls"][len(asked) - 1]["answer"]

    return asked, extract(planned, ask, scenario["domain"], options.max_num_rules)


@pytest.mark.parametrize("path", sorted(FILES))
def test_each_prompt_file_is_expel_s_constant_byte_for_byte(path: str) -> None:
    assert read_prompt(path) == CONSTANTS[FILES[path]]


@pytest.mark.parametrize("kind, constant", [("compare", "human_critique_existing_rules_template"),
                                            ("all_success", "human_critique_existing_rules_all_success_template")])
def test_the_critique_templates_with_the_format_are_expel_s(kind: str, constant: str) -> None:
    text = read_prompt(f"expel/critique_{kind}.txt") + read_prompt("expel/format_rules_operation.txt")
    assert text == CONSTANTS[f"templates/human.py:{constant}"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s["name"])
def test_every_request_and_every_rule_list_is_expel_s(scenario: dict[str, Any]) -> None:
    asked, ledger = _run(scenario)
    calls = scenario["calls"]
    assert len(asked) == len(calls)
    for messages, step, call in zip(asked, ledger.steps, calls):
        assert [[m.role, m.content] for m in messages] == [["user", c] for _, c in call["messages"]]
        assert all(kind == "HumanMessage" for kind, _ in call["messages"])
        assert [[op.label, op.text] for op in step.operations] == call["operations"]
        assert step.list_full == call["list_full"]
        assert [list(pair) for pair in step.rules] == call["rules_after"]
    assert [[rule.text, rule.count] for rule in ledger.rules] == scenario["final_rules"]
    assert rules_message([rule.text for rule in ledger.rules], scenario["domain"]) == scenario["rules_message"][1]


def test_the_scenarios_reach_the_full_list_both_ways() -> None:
    # The golden runs hold the "focus on REMOVE" request and the -3 removal, not only the common case.
    _, ledger = _run(SCENARIOS[1])
    assert any(step.prompt_full for step in ledger.steps) and any(step.list_full for step in ledger.steps)
    assert ledger.dropped


def test_compare_critiques_come_first_then_chunks_and_unsolved_or_held_out_tasks_add_nothing() -> None:
    scenario = SCENARIOS[0]
    tasks = {task.id: task for task in _tasks(scenario)}
    planned = plan_critiques(_training(scenario), "alfworld", random.Random(scenario["seed"]), _options(scenario))
    assert [(p.critique.kind, [(t.task_id, t.trial) for t in p.critique.trials]) for p in planned[:-1]] == [
        ("compare", [("mug", 2), ("mug", 0)]), ("compare", [("mug", 2), ("mug", 1)]),
        ("compare", [("phone", 1), ("phone", 0)])]
    chunk = planned[-1].critique
    assert chunk.kind == "all_success" and sorted(chunk.tasks) == ["egg", "mug", "phone", "salt"]
    assert all(tasks[t.task_id].trials[t.trial].success for t in chunk.trials)
    # book was never solved; apple is held out (not a training task of the fold).
    assert not any({"book", "apple"} & set(p.critique.tasks) for p in planned)


def _solved(n: int) -> list[ExperienceTask]:
    solved = [ExperienceTrial(trajectory="> step", success=True)]
    return [ExperienceTask(id=f"t{i}", task=f"task {i}", trials=solved) for i in range(n)]


@pytest.mark.parametrize("n, sizes", [(1, [1]), (8, [8]), (9, [5, 4]), (17, [6, 6, 5]), (25, [7, 7, 7, 4])])
def test_successes_are_cut_as_expel_cuts_them(n: int, sizes: list[int]) -> None:
    assert [len(chunk) for chunk in success_chunks(_solved(n), 8, random.Random(0))] == sizes


def test_without_any_success_expel_still_asks_one_all_success_critique_over_nothing() -> None:
    failed = [ExperienceTask(id="x", task="task x", trials=[ExperienceTrial(trajectory="> a", success=False)])]
    planned = plan_critiques(failed, "hotpotqa", random.Random(0))
    assert [(p.critique.kind, p.critique.tasks, p.success_history) for p in planned] == [("all_success", [], "")]
    assert plan_critiques([], "hotpotqa", random.Random(0)) == []


def test_read_reflections_adds_each_compared_failed_trial_s_reflection_and_nothing_else() -> None:
    scenario = SCENARIOS[0]
    plain, _ = _run(scenario)
    read, ledger = _run(scenario, read_reflections=True)
    tasks = {task.id: task for task in _tasks(scenario)}
    prefix = read_prompt("expel/alfworld/reflection_prefix.txt")
    for before, after, step in zip(plain, read, ledger.steps):
        if step.critique.kind == "all_success":
            assert after == before and step.critique.reflections == []
            continue
        failed = step.critique.trials[1]
        trial = tasks[failed.task_id].trials[failed.trial]
        anchor = "FAILED TRIAL:\n" + trial.trajectory.strip()
        assert after[0].content == before[0].content.replace(anchor, anchor + prefix + " " + trial.reflection.strip())
        assert [(r.task_id, r.trial, r.text) for r in step.critique.reflections] == [
            (failed.task_id, failed.trial, trial.reflection)]
    assert "\nSTATUS: FAIL\nNew Plan: I put the mug in the coffeemachine without cleaning it." in read[0][0].content


def test_an_empty_rule_list_is_shown_as_expel_shows_it() -> None:
    planned = plan_critiques(_solved(1), "alfworld", random.Random(0))
    content = critique_messages(planned[0], [], "alfworld")[0].content
    assert "Here are the EXISTING RULES:\n1. \n\n" in content
    assert content.endswith(read_prompt("expel/suffix_not_full.txt"))
    assert critique_messages(planned[0], ["A."] * 20, "alfworld")[0].content.endswith(
        read_prompt("expel/suffix_full.txt"))
