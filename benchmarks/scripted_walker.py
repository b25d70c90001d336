"""A benchmark instrument, not a model: the ALFWorld actor's next action from its prompt by a fixed script, so the
throughput benchmark can play games of any number and length at a study's shape without recorded answers.

The walker reads the task part of an actor prompt (after its last "Here is the task:"), takes the receptacles the
room's first observation lists and the actions taken so far, and answers `go to <receptacle k mod n>` for the k-th
action: the engine's most frequent kind of step, a different receptacle each time (no episode ends on a repeated
action), and an observation of the room's usual length after each. No episode is won, so every episode plays its
whole step budget and its prompt grows as a long failed episode's does.
"""

from __future__ import annotations

import re

TASK_MARKER = "Here is the task:"
_SEEN = re.compile(r"you see (?P<things>.*?)\.\n", re.DOTALL)


def receptacles(task_part: str) -> list[str]:
    """The receptacles of the room's first observation ("you see a cabinet 2, a cabinet 1, and a toaster 1.")."""
    match = _SEEN.search(task_part)
    if match is None:
        return []
    things = re.split(r", and |, | and ", match.group("things"))
    return [thing.removeprefix("a ").removeprefix("an ").strip() for thing in things if thing.strip()]


def walker_action(prompt: str) -> str:
    """The scripted next action for an ALFWorld actor prompt."""
    task_part = prompt.rsplit(TASK_MARKER, 1)[-1]
    actions = [f"go to {place}" for place in receptacles(task_part)]
    if len(actions) < 2:  # two actions in a row must differ (and be 5 characters or more, or the actor asks again)
        actions += ["inventory", "look around"]
    return actions[task_part.count("\n> ") % len(actions)]
