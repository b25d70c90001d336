"""A failed trial as numbered turns, so a reflection can cite one turn as evidence for a lesson.

Only what the world said can be evidence (environment observations, the user's task, test output);
the agent's own actions, code and earlier lessons are numbered too, so the reflector sees them, but
the gate refuses them as evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.gate import Turn
from harness.reflection._base import ReflectionInput


def alfworld_turns(scenario: str, actions: Sequence[tuple[str, str]], memory: Sequence[str]) -> list[Turn]:
    """Earlier lessons, the opening observation, then each action and the environment's answer."""
    texts: list[tuple[str, str]] = [("reflection", lesson) for lesson in memory]
    texts.append(("environment", opening_observation(scenario)))
    for action, observation in actions:
        texts.append(("agent", f"> {action}"))
        texts.append(("environment", observation))
    return [Turn(id=number, role=role, text=text) for number, (role, text) in enumerate(texts, start=1)]  # type: ignore[arg-type]


def opening_observation(scenario: str) -> str:
    """The episode log up to its first action: the room and the task."""
    lines = scenario.split("\n")
    first_action = next((index for index, line in enumerate(lines) if line.startswith("> ")), len(lines))
    return "\n".join(lines[:first_action]).strip()


def humaneval_turns(task_text: str, code: str, feedback: str, memory: Sequence[str]) -> list[Turn]:
    """Earlier lessons, the task (the user's), the implementation (the agent's), the test output."""
    texts: list[tuple[str, str]] = [("reflection", lesson) for lesson in memory]
    texts += [("user", task_text.strip()), ("agent", code.strip()), ("tests", feedback.strip())]
    return [Turn(id=number, role=role, text=text) for number, (role, text) in enumerate(texts, start=1)]  # type: ignore[arg-type]


def trial_turns(trial: ReflectionInput) -> list[Turn]:
    """The numbered turns of a failed trial in either domain."""
    if trial.domain == "humaneval":
        step = trial.trajectory[-1]
        return humaneval_turns(trial.task_text, step.action, step.observation, trial.memory)
    steps = [(step.action, step.observation) for step in trial.trajectory]
    return alfworld_turns(trial.scenario, steps, trial.memory)


_SPEAKERS = {
    "reflection": "your earlier lesson",
    "agent": "you",
    "user": "user",
    "environment": "environment",
    "tests": "tests",
}


def render_turns(turns: Sequence[Turn]) -> str:
    """One block per turn: `[N] speaker: text`."""
    return "\n".join(f"[{turn.id}] {_SPEAKERS[turn.role]}: {turn.text}" for turn in turns)
