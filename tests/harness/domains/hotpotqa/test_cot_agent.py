"""Reflexion's CoT agent, piece by piece: its prompt texts, format_step, parse_action, format_reflections, and one
trial's scratchpad for answers the golden runs do not script (an action that does not parse, one that is not
Finish, a Finish with brackets inside)."""

from __future__ import annotations

import ast

import pytest

from harness.domains.hotpotqa.agent import (
    format_reflections,
    format_step,
    parse_action,
    play_cot_trial,
)
from harness.domains.hotpotqa.questions import questions_by_id
from harness.llm import CachedLLM, CacheStore, CallContext, LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import read_prompt
from tests.runner import ROOT

VIVA = "5a7613c15542994ccc9186bf"


def constants(name: str) -> dict[str, str]:
    """The string constants of one of Reflexion's shipped source files, read without running it."""
    tree = ast.parse((ROOT / "data" / "hotpotqa" / name).read_text())
    return {
        node.targets[0].id: node.value.value  # type: ignore[attr-defined]
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


@pytest.mark.parametrize(
    ("prompt", "source", "constant"),
    [
        ("cot_agent_instruction.txt", "reflexion_prompts.py.txt", "COT_AGENT_REFLECT_INSTRUCTION"),
        ("cot_reflect_instruction.txt", "reflexion_prompts.py.txt", "COT_REFLECT_INSTRUCTION"),
        ("reflection_header.txt", "reflexion_prompts.py.txt", "REFLECTION_HEADER"),
        ("cot_examples.txt", "reflexion_fewshots.py.txt", "COT"),
        ("cot_reflect_examples.txt", "reflexion_fewshots.py.txt", "COT_REFLECT"),
    ],
)
def test_each_prompt_file_is_reflexions_constant_byte_for_byte(prompt: str, source: str, constant: str) -> None:
    assert read_prompt(f"hotpotqa/{prompt}") == constants(source)[constant]


def test_format_step_strips_and_removes_newlines() -> None:
    assert format_step("\n  I think so.\n") == "I think so."
    assert format_step(" Finish[a\nb] ") == "Finish[ab]"
    assert format_step("\n\n") == ""


def test_parse_action_is_reflexions_pattern() -> None:
    assert parse_action("Finish[Bath, Maine]") == ("Finish", "Bath, Maine")
    # Greedy and anchored: everything between the first [ and the last ] is the argument.
    assert parse_action("Finish[GmbH] [END OF EXAMPLES]") == ("Finish", "GmbH] [END OF EXAMPLES")
    assert parse_action("Search[Nile]") == ("Search", "Nile")
    assert parse_action("The answer is Nile.") is None
    assert parse_action("Finish[]") is None
    assert parse_action("Finish[Nile] because") is None


def test_format_reflections_lists_each_stripped_under_the_header() -> None:
    assert format_reflections([]) == ""
    block = format_reflections([" One. ", "Two.\n"])
    assert block == read_prompt("hotpotqa/reflection_header.txt") + "Reflections:\n- One.\n- Two."


class Scripted:
    """A stand-in model (named so: no LLM), answering each call with the next text; keeps the prompts."""

    identity = "scripted"

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.prompts.append(request.prompt or "")
        return LLMResponse(text=self.answers.pop(0), usage=Usage(), latency_s=0.0)


def metered(model: Scripted, tmp_path) -> MeteredLLM:  # type: ignore[no-untyped-def]
    llm = CachedLLM(model, CacheStore(tmp_path / "cache.jsonl"), "off")
    return MeteredLLM(llm, CallContext(task_id=VIVA, trial=0, condition="c", role="actor"))


@pytest.mark.parametrize(
    ("action", "end_reason", "observation", "answer"),
    [
        (" The answer is GmbH.", "unparsed_action", "", None),
        ("Search[GmbH]", "no_finish", "", None),
        ("Finish[gesellschaft mit beschränkter haftung!]", "correct", "Answer is CORRECT", "gesellschaft mit "
         "beschränkter haftung!"),
        ("Finish[GmbH]", "incorrect", "Answer is INCORRECT", "GmbH"),
    ],
)
def test_one_trial_writes_reflexions_scratchpad(
    action: str, end_reason: str, observation: str, answer: str | None, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    model = Scripted(" It is in the second paragraph.\n", action)
    trial = play_cot_trial(questions_by_id()[VIVA], ["Read both paragraphs."], ["VIVA"], metered(model, tmp_path), 0)
    formatted = format_step(action)
    assert trial.attempt.scratchpad == (
        f"\nThought: It is in the second paragraph.\nAction: {formatted}\nObservation: {observation}"
    )
    assert (trial.end_reason, trial.success, trial.attempt.answer) == (end_reason, end_reason == "correct", answer)
    assert [(s.action, s.observation) for s in trial.trajectory] == [(formatted, observation)]
    assert trial.attempt.earlier_answers == ["VIVA"]
    # The second call continues the first one's scratchpad; both read the reflections block.
    assert model.prompts[0].endswith("Question: " + questions_by_id()[VIVA].question + "\nThought:")
    assert model.prompts[1].endswith("\nThought: It is in the second paragraph.\nAction:")
    assert all("Reflections:\n- Read both paragraphs.\n\nRelevant Context: " in p for p in model.prompts)
