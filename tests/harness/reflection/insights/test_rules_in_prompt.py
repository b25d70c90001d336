"""The rule library's place in each ExpeL domain's prompt: after the examples, before the task's memory and the task
(ExpeL's insert_before_task_prompt); without rules, Reflexion's prompt byte for byte."""

from __future__ import annotations

from harness.domains.alfworld.actor import actor_prompt
from harness.domains.hotpotqa.agent import agent_prompt
from harness.domains.hotpotqa.questions import questions_by_id
from harness.reflection.insights import rules_message

RULES = ["Read the whole context before answering.", "Answer with the shortest span."]


def test_hotpotqa_rules_go_before_the_reflections_and_the_context() -> None:
    question = questions_by_id()["5a7613c15542994ccc9186bf"]
    message = rules_message(RULES, "hotpotqa")
    plain = agent_prompt(question, ["Plan Zeta."], "\nThought:")
    ruled = agent_prompt(question, ["Plan Zeta."], "\nThought:", message)
    assert agent_prompt(question, ["Plan Zeta."], "\nThought:", "") == plain
    assert ruled.replace(message.rstrip("\n") + "\n", "", 1) == plain
    assert ruled.index("(END OF EXAMPLES)") < ruled.index("2. Answer with the shortest span.") < ruled.index(
        "Plan Zeta.") < ruled.rindex("Relevant Context:")
    alone = agent_prompt(question, [], "\nThought:", message)
    assert "(END OF EXAMPLES)\n\n" + message.rstrip("\n") + "\n\nRelevant Context:" in alone


def test_alfworld_rules_go_after_the_examples_before_the_memory() -> None:
    message = rules_message(RULES, "alfworld")
    plain = actor_prompt("put", ["plan A"], "START", [])
    ruled = actor_prompt("put", ["plan A"], "START", [], rules=message)
    assert actor_prompt("put", ["plan A"], "START", [], rules="") == plain
    assert ruled.replace("\n\n" + message.rstrip("\n"), "", 1) == plain
    assert ruled.index("1. Read the whole context") < ruled.index("Your memory for the task below:")
