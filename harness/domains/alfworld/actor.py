"""The ALFWorld Reflexion actor: builds Reflexion's prompt from prompts/ and memory, asks the LLM, acts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from harness.errors import ContextOverflowError
from harness.llm import LLMRequest
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import alfworld_actor_header, alfworld_base_prompt
from harness.records.step import Step

# Reflexion's `llm()`: 256 tokens, stop at newline, retry outputs under 5 characters
# up to 6 times with temperature 0.2 x try.
ACTION_MAX_TOKENS = 256
SHORT_OUTPUT_CHARS = 5
OUTPUT_TRIES = 6
THINK_OBSERVATION = "OK."
TASK_MARKER = "Here is the task:"


class Observation(Protocol):
    @property
    def observation(self) -> str: ...

    @property
    def won(self) -> bool: ...

    @property
    def done(self) -> bool: ...


class Playable(Protocol):
    """What the actor needs of an environment: nothing about LLMs flows the other way."""

    def reset(self) -> Observation: ...

    def step(self, action: str) -> Observation: ...


class Episode(BaseModel):
    """One played episode as the actor saw it."""

    model_config = ConfigDict(frozen=True)

    initial_observation: str
    task_text: str
    steps: list[Step]
    success: bool
    end_reason: str

    def scenario(self) -> str:
        """The log the reflector reads: Reflexion's text after 'Here is the task:', then its status line."""
        log = episode_log(self.initial_observation, self.steps)
        status = "OK" if self.success else "FAIL"
        return f"{log.strip()}\n\nSTATUS: {status}"


def initial_observation(reset_text: str) -> str:
    """Reset text without its first paragraph (the TextWorld banner)."""
    return "\n".join(reset_text.split("\n\n")[1:])


def task_text_of(observation: str) -> str:
    """The sentence after 'Your task is to: ' in an initial observation."""
    marker = "Your task is to: "
    return observation.split(marker, 1)[1].strip() if marker in observation else ""


def clean_observation(observation: str) -> str:
    """Reflexion drops 'You arrive at loc N. ' from arrival messages."""
    if observation.startswith("You arrive at loc "):
        return observation[observation.find(". ") + 2 :]
    return observation


def episode_log(start: str, steps: list[Step]) -> str:
    """The task part of Reflexion's `str(EnvironmentHistory)`: start info, then `> action` and observations.

    Reflexion's start info ends in a newline (`start` here does not); items after it are joined by newlines.
    """
    return start + "\n" + "\n".join(f"> {step.action}\n{step.observation}" for step in steps)


def actor_prompt(
    prompt_type: str,
    memory: list[str],
    start: str,
    steps: list[Step],
    newline_before_prompt: bool = False,
    rules: str = "",
    examples: str = "",
) -> str:
    """Reflexion's actor prompt for the next action: `str(EnvironmentHistory) + ">"`.

    The original puts no newline between the last observation and `>` (`...OK.>`); `newline_before_prompt`
    is the harness's option to put one there, as the few-shot examples have it. `rules` (an ExpeL rule message)
    goes after the examples and before the task's memory and the task, where ExpeL's insert_before_task_prompt puts it.
    `examples` (ExpeL's retrieved successes) take the place of Reflexion's two fixed examples after the header.
    """
    query = alfworld_base_prompt(prompt_type) if not examples else alfworld_actor_header() + examples
    if rules:
        query += "\n\n" + rules.rstrip("\n")
    if memory:
        query += "\n\nYour memory for the task below:"
        for index, reflection in enumerate(memory):
            query += f"\nTrial {index}:\n{reflection.strip()}"
    query += f"\n{TASK_MARKER}\n" + episode_log(start, steps)
    return query + ("\n>" if newline_before_prompt and steps else ">")


def next_action(prompt: str, llm: MeteredLLM, seed: int) -> str:
    """Ask for one action, retrying short outputs as Reflexion did; '' if every try is short."""
    for attempt in range(OUTPUT_TRIES):
        request = LLMRequest(
            kind="completion",
            prompt=prompt,
            max_tokens=ACTION_MAX_TOKENS,
            temperature=round(0.2 * attempt, 2),
            stop=["\n"],
            seed=seed,
        )
        text = llm.generate(request).text
        if len(text.strip()) >= SHORT_OUTPUT_CHARS:
            return text.strip()
    return ""


def play_episode(
    env: Playable,
    prompt_type: str,
    memory: list[str],
    llm: MeteredLLM,
    max_steps: int,
    seed: int,
    on_step: Callable[[int], None] = lambda step: None,
    newline_before_prompt: bool = False,
    rules: str = "",
    examples: str = "",
) -> Episode:
    """Play one game to won, a repeated action ('exhausted'), or the step budget."""
    start = initial_observation(env.reset().observation)
    steps: list[Step] = []
    end_reason = "max_steps"
    success = False
    # Reflexion's EnvironmentHistory starts with `_last_action = ''`: an empty first action is a repeat.
    last_action = ""
    while len(steps) < max_steps:
        on_step(len(steps) + 1)
        try:
            prompt = actor_prompt(prompt_type, memory, start, steps, newline_before_prompt, rules, examples)
            action = next_action(prompt, llm, seed)
        except ContextOverflowError:
            end_reason = "context_overflow"
            break
        result = env.step(action)
        observation = THINK_OBSERVATION if action.startswith("think:") else clean_observation(result.observation)
        steps.append(Step(action=action, observation=observation))
        if result.won or result.done:
            success = bool(result.won)
            end_reason = "won" if success else "done"
            break
        if action == last_action:
            end_reason = "exhausted"
            break
        last_action = action
    return Episode(
        initial_observation=start,
        task_text=task_text_of(start),
        steps=steps,
        success=success,
        end_reason=end_reason,
    )
