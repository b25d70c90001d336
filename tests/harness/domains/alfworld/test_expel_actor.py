"""ExpeL's evaluation actor (`insights.actor=expel`) against what ExpeL's own code sent and did
(tests/fixtures/insights/golden_actor.json): every request byte for byte, the actions sent to the game, how each
episode ended; and the prompt texts in prompts/expel/ against the strings ExpeL's modules hold."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from harness.domains.alfworld.expel_actor import play_expel_episode, read_output
from harness.llm import CachedLLM, CacheStore, CallContext, LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import alfworld_react_examples, read_prompt
from tests.runner import ROOT

GOLDEN = json.loads((ROOT / "tests" / "fixtures" / "insights" / "golden_actor.json").read_text())
BANNER = "-= Welcome to TextWorld, ALFRED! =-\n\n"


class ScriptedOutputs:
    """A stand-in model answering each call with the scenario's next raw output (named so: it is no LLM)."""

    identity = "scripted-expel-outputs"

    def __init__(self, outputs: list[str]) -> None:
        self.outputs, self.requests = list(outputs), []  # type: list[str], list[LLMRequest]

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return LLMResponse(text=self.outputs.pop(0), usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


class _Result:
    def __init__(self, observation: str, won: bool) -> None:
        self.observation, self.won, self.done = observation, won, False


class ScriptedGame:
    """A stand-in for the engine answering the scenario's actions with the real engine's texts, in order."""

    def __init__(self, goal: str, answers: list[list[Any]]) -> None:
        self.goal, self.answers, self.sent = goal, list(answers), []  # type: str, list[list[Any]], list[str]

    def reset(self) -> _Result:
        return _Result(BANNER + self.goal, False)

    def step(self, action: str) -> _Result:
        self.sent.append(action)
        _, observation, won = self.answers.pop(0)
        return _Result(observation, won)


@pytest.mark.parametrize("scenario", GOLDEN["scenarios"], ids=[s["name"] for s in GOLDEN["scenarios"]])
def test_each_request_and_action_is_expels(scenario: dict[str, Any], tmp_path: Path) -> None:
    expected = scenario["expected"]
    goal = scenario["expel_task"].split("___")[0]
    model, game = ScriptedOutputs(scenario["outputs"]), ScriptedGame(goal, scenario["engine"])
    llm = MeteredLLM(CachedLLM(model, CacheStore(tmp_path / "cache.jsonl"), "off"),  # type: ignore[arg-type]
                     CallContext(task_id=scenario["game_id"], trial=0, condition="test", role="actor"))
    rules = "" if scenario["no_rules"] else read_prompt("expel/alfworld/rule_template.txt").format(
        rules="\n".join(f"{i}. {rule}" for i, rule in enumerate(scenario["rules"], 1)))
    examples = "\n\n".join(scenario.get("fewshots") or [])
    episode = play_expel_episode(game, scenario["prompt_type"], llm, scenario["max_steps"], seed=0, rules=rules,
                                 examples=examples)
    sent = [[{"type": "HumanMessage", "content": m.content} for m in r.messages or []] for r in model.requests]
    assert sent == [request["messages"] for request in expected["requests"]]
    assert all(r.kind == "chat" and r.temperature == 0 and r.stop == request["stop"]
               for r, request in zip(model.requests, expected["requests"]))
    assert game.sent == expected["env_actions"] and model.outputs == []
    assert episode.success == expected["success"]
    assert [s.action for s in episode.steps if not s.action.startswith("think:")] == expected["env_actions"]
    # The last observation ExpeL logged (a win's "Task is SOLVED.", or the game's text) ends the episode here too.
    assert episode.steps[-1].observation == expected["log"].split("\n")[-1]
    assert episode.initial_observation == goal and episode.task_text == goal.split("Your task is to: ")[1]


def test_the_prompt_texts_are_expels_strings() -> None:
    constants = GOLDEN["constants"]
    assert read_prompt("expel/system.txt") == constants["system_template"]
    assert read_prompt("expel/alfworld/actor_instruction.txt") == constants["system_instruction"]
    assert read_prompt("expel/alfworld/actor_steps.txt") == constants["human_instruction_template"]
    assert read_prompt("expel/actor_examples.txt") == constants["human_instruction_fewshots_template"]
    assert read_prompt("expel/actor_task.txt") == constants["human_task_template"]
    # ExpeL's examples are Reflexion's, the first two of a type in order 0, 1.
    react = alfworld_react_examples()
    assert {k: hashlib.sha256(v.encode()).hexdigest() for k, v in react.items()} == constants["react_examples_sha256"]
    assert all(names == [names[0][:-1] + "0", names[0][:-1] + "1"] for names in constants["fewshots"].values())


@pytest.mark.parametrize(("raw", "read"), [
    ("  > Go To Desk 1 \n", ("action", "go to desk 1")),
    ("think: I think so", ("thought", "Iso")),
    ("examine desk 1", ("thought", "examine desk 1")),
    ("", ("thought", "")),
])
def test_an_output_is_read_as_expels_parser_reads_it(raw: str, read: tuple[str, str]) -> None:
    assert read_output(raw) == read
