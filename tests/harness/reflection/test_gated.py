"""gated: the reflector proposes lessons with evidence; the source asks and parses, the gate decides."""

from __future__ import annotations

import json
from pathlib import Path

from harness.domains.alfworld.reflection import AlfworldReflection
from harness.domains.humaneval.reflection import HumanEvalReflection
from harness.reflection import ReflectionInput
from harness.reflection.gated import Gated
from harness.records.step import Step
from tests.harness.reflection.canned import TRAJECTORY, CannedAnswer, metered

SCENARIO = (
    "You are in the middle of a room. Looking quickly around you, you see a countertop 1, and a toilet 1.\n"
    "Your task is to: put some soapbottle on toilet.\n"
    + "".join(f"> {step.action}\n{step.observation}\n" for step in TRAJECTORY)
    + "\nSTATUS: FAIL"
)
GOOD = {
    "lesson": "Take soapbottle 1, the one that is there.",
    "evidence": {"turn": 6, "quote": "you see a soapbottle 1."},
}
OWN_ACTION = {
    "lesson": "I took the wrong bottle.",
    "evidence": {"turn": 7, "quote": "> take soapbottle 2 from countertop 1"},
}


def alfworld_trial() -> ReflectionInput:
    return ReflectionInput(
        domain="alfworld",
        task_id="pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004404_604165",
        task_text="put some soapbottle on toilet.",
        scenario=SCENARIO,
        trajectory=TRAJECTORY,
        end_reason="max_steps",
        max_steps=len(TRAJECTORY),
        memory=["an earlier lesson"],
    )


def test_alfworld_prompt_numbers_every_turn_and_ends_inside_the_answer_list(tmp_path: Path) -> None:
    backend = CannedAnswer(json.dumps([GOOD, OWN_ACTION])[1:])  # the prompt already opened the list
    reflection = Gated(memory_window=3).reflect(alfworld_trial(), AlfworldReflection(), metered(backend, tmp_path))
    [prompt] = backend.prompts
    assert prompt.endswith("Lessons:\n[")
    assert "[1] your earlier lesson: an earlier lesson\n[2] environment: You are in the middle of a room." in prompt
    assert (
        "[6] environment: On the countertop 1, you see a soapbottle 1.\n[7] you: > take soapbottle 2 from countertop 1"
        in prompt
    )
    assert reflection.text is None, "nothing reaches memory from the source itself"
    answer = reflection.gate_answer
    assert answer is not None and answer.candidates == [GOOD, OWN_ACTION]
    assert [t.role for t in answer.turns[:4]] == ["reflection", "environment", "agent", "environment"]
    assert len(answer.turns) == 2 + 2 * len(TRAJECTORY)


def test_humaneval_asks_in_chat_with_the_task_code_and_test_output_as_turns(tmp_path: Path) -> None:
    feedback = "Tested passed:\n\nTests failed:\nassert add(2, 2) == 4 # output: 0"
    trial = ReflectionInput(
        domain="humaneval",
        task_id="HumanEval/53",
        task_text="def add(x, y):\n    '''Add two numbers.'''\n",
        scenario=feedback,
        trajectory=[Step(action="def add(x, y):\n    return x - y\n", observation=feedback)],
        end_reason="internal_tests_failed",
        max_steps=1,
        memory=[],
    )
    item = {"lesson": "add must return the sum.", "evidence": {"turn": 3, "quote": "assert add(2, 2) == 4 # output: 0"}}
    backend = CannedAnswer("```json\n" + json.dumps([item]) + "\n```")
    reflection = Gated(memory_window=1).reflect(trial, HumanEvalReflection(), metered(backend, tmp_path))
    [request] = backend.requests
    assert request.kind == "chat" and request.messages is not None
    system, user = request.messages
    assert "quote copied exactly" in system.content
    assert "[1] user: def add(x, y):" in user.content and "[2] you: def add(x, y):" in user.content
    assert "[3] tests: Tested passed:" in user.content
    assert reflection.gate_answer is not None and reflection.gate_answer.candidates == [item]


def test_the_policy_option_is_checked() -> None:
    assert Gated(memory_window=3, options={"policy": "owner"}).options.policy == "owner"  # type: ignore[attr-defined]
    try:
        Gated(memory_window=3, options={"policy": "sometimes"})
    except ValueError as error:
        assert "auto" in str(error) and "owner" in str(error)
    else:
        raise AssertionError("an unknown policy was accepted")
