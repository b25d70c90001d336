"""The actor's episode rules on a real ALFWorld game, driven by a scripted (not learned) action source."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.alfworld import AlfworldEpisode, list_games, select_games
from harness.domains.alfworld.actor import play_episode
from harness.llm import CachedLLM, CacheStore, CallContext, LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM


class ScriptedActions:
    """A stand-in model that answers each actor call with the next scripted line (named so: it is no LLM)."""

    identity = "scripted-actions"

    def __init__(self, actions: list[str]) -> None:
        self.actions = list(actions)
        self.prompts: list[str] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.prompts.append(request.prompt or "")
        text = self.actions.pop(0) if self.actions else "inventory"
        return LLMResponse(text=" " + text, usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


@pytest.fixture(scope="module")
def game():
    (chosen,) = select_games(list_games(), task_types=["put"], first_n=1)
    return chosen


def planner_commands(game) -> list[str]:
    """ALFWorld's own planner's commands from reset to won."""
    commands = []
    with AlfworldEpisode(game, policy_commands=True) as env:
        result = env.reset()
        while not result.won:
            command = result.policy_commands[0]
            commands.append(command)
            result = env.step(command)
    return commands


def play(game, actions: list[str], tmp_path: Path, max_steps: int = 49):
    backend = ScriptedActions(actions)
    llm = MeteredLLM(
        CachedLLM(backend, CacheStore(tmp_path / "cache.jsonl"), "off"),
        CallContext(task_id=game.game_id, trial=0, condition="test", role="actor"),
    )
    with AlfworldEpisode(game) as env:
        episode = play_episode(env, game.prompt_type, ["remember the desk"], llm, max_steps, seed=0)
    return episode, backend


def test_following_the_planner_wins_and_thoughts_get_ok(game, tmp_path: Path) -> None:
    commands = planner_commands(game)
    episode, backend = play(game, ["think: find the object first", *commands], tmp_path)
    assert episode.success and episode.end_reason == "won"
    assert episode.steps[0].observation == "OK."
    assert [s.action for s in episode.steps[1:]] == commands
    assert episode.task_text == game.task_text
    assert "You arrive at loc" not in "\n".join(s.observation for s in episode.steps)
    # The memory window is in every actor prompt, and each prompt ends with the history so far.
    assert all("Your memory for the task below:\nTrial 0:\nremember the desk" in p for p in backend.prompts)
    assert backend.prompts[-1].endswith(f"> {commands[-2]}\n{episode.steps[-2].observation}>")


def test_a_repeated_action_exhausts_the_episode(game, tmp_path: Path) -> None:
    episode, _ = play(game, ["go to desk 1", "examine desk 1", "examine desk 1", "inventory"], tmp_path)
    assert not episode.success and episode.end_reason == "exhausted"
    assert [s.action for s in episode.steps] == ["go to desk 1", "examine desk 1", "examine desk 1"]


def test_the_step_budget_ends_the_episode(game, tmp_path: Path) -> None:
    episode, _ = play(game, ["inventory", "go to desk 1"] * 10, tmp_path, max_steps=5)
    assert episode.end_reason == "max_steps" and len(episode.steps) == 5


def test_short_outputs_are_retried_with_rising_temperature(game, tmp_path: Path) -> None:
    class Recorder(ScriptedActions):
        def generate(self, request: LLMRequest) -> LLMResponse:
            self.temperatures = getattr(self, "temperatures", []) + [request.temperature]
            return super().generate(request)

    # Reflexion retries anything under 5 characters, so even "look" counts as short.
    backend = Recorder(["", "ok", "look", "inventory"])
    llm = MeteredLLM(
        CachedLLM(backend, CacheStore(tmp_path / "cache.jsonl"), "off"),
        CallContext(task_id=game.game_id, trial=0, condition="test", role="actor"),
    )
    with AlfworldEpisode(game) as env:
        episode = play_episode(env, game.prompt_type, [], llm, 49, seed=0)
    assert backend.temperatures[:4] == [0.0, 0.2, 0.4, 0.6]
    assert episode.steps[0].action == "inventory"
    # Four calls for the first action; the scripted fallback then repeats it and exhausts the episode.
    assert llm.calls == 5 and episode.end_reason == "exhausted"
