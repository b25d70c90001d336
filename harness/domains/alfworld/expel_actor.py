"""ExpeL's ALFWorld evaluation actor (`insights.actor=expel`): its ReAct chat prompt, its parser and its step budget.

ExpeL (LeapLabTHU/ExpeL, agent/react.py `ReactAgent`, prompts/alfworld.py, envs/alfworld/alfworld.py) sends one user
message: "You are alfred. <instruction>", the step budget and two examples of the task's type (ExpeL's examples are
Reflexion's `react_<type>_0` and `_1`, in that order), "(END OF EXAMPLES)", the rule library's message, "Now it's
your turn!" with the task as its task file gives it (the room, a blank line, "Your task is to: ..."), then every
message of the episode so far, joined by newlines. A model output is read as a thought or an action; a thought gets
no observation, three in a row send "N/A" to the game; an action repeated at once ends the episode after it is
played; a win is shown as "Task is SOLVED."; the budget counts the game's steps (20 in ExpeL's configs).
tests/fixtures/insights/golden_actor.json holds what ExpeL's own code sent and did on three scripted episodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from harness.domains.alfworld.actor import (
    ACTION_MAX_TOKENS,
    Episode,
    Playable,
    clean_observation,
    task_text_of,
)
from harness.errors import ContextOverflowError
from harness.llm import ChatMessage, LLMRequest
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import alfworld_react_examples, read_prompt
from harness.records.step import Step

EXPEL_MAX_STEPS = 20
"""ExpeL's ALFWorld step budget (configs/benchmark/alfworld.yaml `max_steps`): game steps, thoughts not counted."""
THOUGHTS_BEFORE_NA = 3
"""ExpeL asks at most this many thoughts in a row; after the last it sends "N/A" to the game."""
NOT_AN_ACTION = "N/A"
STOP = ["\n", "\n\n"]
"""ExpeL's stop sequences for an actor call."""

# ExpeL's LLM_PARSER (prompts/alfworld.py): a thought starts with "think" (after an optional ">"), and every such
# marker in it is removed; an action starts with ">" or with one of its verbs; anything else is a thought.
_THOUGHT_START = re.compile(r"(?:>|)\s*think(?::|)", re.IGNORECASE)
_THOUGHT_MARKER = re.compile(r"(?:>|)\s*think(?::|)\s*", re.IGNORECASE)
_PROMPT_MARK = re.compile(r">\s*", re.IGNORECASE)
_ACTION_START = re.compile(r"(?:go to|open|take|put|use|heat|cool|look|clean|inventory)", re.IGNORECASE)
# ExpeL's AlfworldEnv.step: "put X n in Y m" (or "on") becomes the game's "put X n in/on Y m".
_TWO_WORD_PUT = re.compile(r"put (\w+\s*\d+) (?:in|on) (\w+\s*\d+)")

Kind = Literal["thought", "action"]


def opening(reset_text: str) -> str:
    """The task as ExpeL's task file has it: the reset text after its banner, its paragraphs kept (the room, a blank
    line, "Your task is to: ..."; Reflexion's start joins them with one newline)."""
    return reset_text.split("\n\n", 1)[1] if "\n\n" in reset_text else reset_text


def read_output(raw: str) -> tuple[Kind, str]:
    """(kind, text) of one model output as ExpeL reads it: the output stripped and its newlines removed (its
    GPTWrapper), then a thought's text or the action, lower-cased."""
    output = raw.strip("\n").strip().replace("\n", "")
    if _THOUGHT_START.match(output):
        return "thought", _THOUGHT_MARKER.sub("", output)
    if _PROMPT_MARK.match(output) or _ACTION_START.match(output):
        return "action", _PROMPT_MARK.sub("", output.lower()).strip()
    return "thought", output


def game_action(action: str) -> str:
    """The action as ExpeL's environment sends it to the game."""
    match = _TWO_WORD_PUT.match(action)
    return f"put {match.group(1)} in/on {match.group(2)}" if match else action


def game_observation(raw: str, won: bool) -> str:
    """The game's answer as ExpeL's environment shows it: arrival and "you see nothing" trimmed, a win replaced."""
    if won:
        return read_prompt("expel/alfworld/solved.txt")
    return clean_observation(raw).replace(" In it, you see nothing.", "").replace(", you see nothing", "")


def expel_actor_message(prompt_type: str, task: str, history: list[str], rules: str = "", examples: str = "",
                        max_steps: int = EXPEL_MAX_STEPS) -> str:
    """The one user message ExpeL sends for the next output. `examples`: retrieved ones, joined by blank lines, in
    place of the two fixed ones; `rules`: the library's message ("" sends none)."""
    react = alfworld_react_examples()
    shown = examples or "\n\n".join(react[f"react_{prompt_type}_{index}"] for index in (0, 1))
    opening = read_prompt("expel/system.txt").format(
        ai_name=read_prompt("expel/alfworld/actor_ai_name.txt"),
        instruction=read_prompt("expel/alfworld/actor_instruction.txt"),
    )
    steps = read_prompt("expel/alfworld/actor_steps.txt").format(instruction="", max_steps=max_steps)
    parts = [opening, read_prompt("expel/actor_examples.txt").format(instruction=steps, fewshots=shown)]
    if rules:
        parts.append(rules)
    parts.append(read_prompt("expel/actor_task.txt").format(task=task))
    return "\n".join(parts + history)


def _ask(message: str, llm: MeteredLLM, seed: int) -> tuple[Kind, str]:
    # ExpeL's actor sets no answer limit; the stop at a newline ends an action long before this one.
    request = LLMRequest(kind="chat", messages=[ChatMessage(role="user", content=message)],
                         max_tokens=ACTION_MAX_TOKENS, temperature=0.0, stop=list(STOP), seed=seed)
    return read_output(llm.generate(request).text)


def play_expel_episode(env: Playable, prompt_type: str, llm: MeteredLLM, max_steps: int, seed: int,
                       on_step: Callable[[int], None] = lambda step: None, rules: str = "",
                       examples: str = "") -> Episode:
    """One game played by ExpeL's actor: to a win, an action repeated at once ('exhausted'), or `max_steps` game
    steps. A thought is recorded with no observation (ExpeL shows none)."""
    start = opening(env.reset().observation)
    history: list[str] = []
    steps: list[Step] = []
    last_action: str | None = None
    end_reason, success = "max_steps", False
    played = 0
    while played < max_steps:
        on_step(played + 1)
        action = NOT_AN_ACTION
        try:
            for _ in range(THOUGHTS_BEFORE_NA):
                kind, text = _ask(expel_actor_message(prompt_type, start, history, rules, examples, max_steps), llm,
                                  seed)
                if kind == "action":
                    history.append(f"> {text}")
                    action = text
                    break
                history.append(f"> think: {text}")
                steps.append(Step(action=f"think: {text}", observation=""))
        except ContextOverflowError:
            end_reason = "context_overflow"
            break
        sent = game_action(action)
        result = env.step(sent)
        played += 1
        observation = game_observation(result.observation, result.won)
        if action == NOT_AN_ACTION:
            observation = read_prompt("expel/alfworld/too_many_thoughts.txt")
        history.append(observation)
        steps.append(Step(action=sent, observation=observation))
        if result.won:
            end_reason, success = "won", True
            break
        if sent == last_action:
            end_reason = "exhausted"
            break
        last_action = sent
    return Episode(initial_observation=start, task_text=task_text_of(start), steps=steps, success=success,
                   end_reason=end_reason)
