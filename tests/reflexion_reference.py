"""A test instrument: the original Reflexion ALFWorld loop restated from its published code, to judge the harness
on games and scripted answers the goldens do not cover.

It replays a scripted model against the real engine the way `alfworld_trial.alfworld_run`, `llm()`,
`EnvironmentHistory` and `generate_reflections.update_memory` do at 218cf0e, and returns every call it would
make. Nothing here is part of the harness: it reads only the prompt files and the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from envs.alfworld import AlfworldEpisode, AlfworldGame
from harness.llm.prompts import alfworld_base_prompt, read_prompt

MAX_STEPS = 49


def _start_info(reset_text: str) -> str:
    # alfworld_trial.py: ob = '\n'.join(ob[0].split('\n\n')[1:]); the batch env's text ends in a newline.
    return "\n".join(reset_text.split("\n\n")[1:]) + "\n"


def _history(base_query: str, start_info: str, memory: list[str], items: list[str]) -> str:
    query = base_query
    if memory:
        query += "\n\nYour memory for the task below:"
        for index, reflection in enumerate(memory):
            query += f"\nTrial {index}:\n{reflection.strip()}"
    return f"{query}\nHere is the task:\n{start_info}" + "\n".join(items)


def _reflection_query(scenario: str, memory: list[str]) -> str:
    query = read_prompt("alfworld/alfworld_reflection_query.txt").format(
        few_shot_examples=read_prompt("alfworld/reflexion_few_shot_examples.txt"), scenario=scenario
    )
    if memory:
        query += "\n\nPlans from past attempts:\n" + "".join(f"Trial #{i}: {m}\n" for i, m in enumerate(memory))
    return query + "\n\nNew plan:"


def reference_run(game: AlfworldGame, answers: Iterator[str], trials: int) -> tuple[list[dict[str, Any]], list[bool]]:
    """Every call the original makes over `trials` trials of one game (role, prompt, temperature, max_tokens,
    stop), answered in order from `answers`, and each trial's success."""
    calls: list[dict[str, Any]] = []
    successes: list[bool] = []
    memory: list[str] = []

    def ask(role: str, prompt: str, temperature: float, stop: list[str] | None) -> str:
        answer = next(answers)
        calls.append({"role": role, "prompt": prompt, "temperature": temperature, "max_tokens": 256, "stop": stop})
        return answer

    for _ in range(trials):
        window = memory[-3:]
        with AlfworldEpisode(game, max_episode_steps=None) as env:
            start_info = _start_info(env.reset().observation)
            items: list[str] = []
            last_action, success = "", False
            for _step in range(MAX_STEPS):
                prompt = _history(alfworld_base_prompt(game.prompt_type), start_info, window, items) + ">"
                action = ""
                for attempt in range(6):  # llm(): retry outputs under 5 characters at temperature 0.2 x try
                    text = ask("actor", prompt, round(0.2 * attempt, 2), ["\n"]).strip()
                    if len(text) >= 5:
                        action = text
                        break
                result = env.step(action)
                observation = "OK." if action.startswith("think:") else result.observation
                if observation.startswith("You arrive at loc "):
                    observation = observation[observation.find(". ") + 2 :]
                items += [f"> {action}", observation]
                if result.done:
                    success = bool(result.won)
                    break
                if action == last_action:
                    break
                last_action = action
        successes.append(success)
        if success:
            break
        log = _history("", start_info, [], items)
        scenario = f"{log}\n\nSTATUS: FAIL".split("Here is the task:")[-1].strip()
        memory.append(ask("reflector", _reflection_query(scenario, window), 0.0, None))
    return calls, successes
