"""Deterministic failure signals read off a recorded ALFWorld trajectory.

What the environment itself says went wrong, with no model in the loop: actions answered
"Nothing happens.", action loops, the repeated-action stop and the spent step budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records.alfworld import NOTHING_HAPPENS, ActionLoop, Exhaustion, FailureSignals, NothingHappens, StepBudget
from harness.records.step import Step

# The actor answers these itself ("OK.") without touching the environment.
THOUGHT_PREFIX = "think:"
MAX_CYCLE = 3
END_REASONS = ("won", "exhausted", "max_steps", "context_overflow", "done")


def is_thought(action: str) -> bool:
    """A `think:` action, as the actor recognises it."""
    return action.startswith(THOUGHT_PREFIX)


def find_nothing_happens(steps: Sequence[Step]) -> list[NothingHappens]:
    """Steps whose observation is exactly "Nothing happens."."""
    return [
        NothingHappens(step=number, action=step.action)
        for number, step in enumerate(steps, start=1)
        if step.observation == NOTHING_HAPPENS
    ]


def _repeats(actions: list[str], start: int, length: int) -> int:
    """How many copies of actions[start:start+length] follow each other from `start`."""
    cycle = actions[start : start + length]
    if len(cycle) < length:
        return 0
    count = 1
    while actions[start + count * length : start + (count + 1) * length] == cycle:
        count += 1
    return count


def find_action_loops(steps: Sequence[Step], max_cycle: int = MAX_CYCLE) -> list[ActionLoop]:
    """Cycles of 1..max_cycle environment actions repeated at least twice in a row.

    `think:` actions are skipped: they leave the environment as it was, so going back and forth
    with a thought in between is still a loop, and one the actor's repeated-action stop misses.
    Scanning left to right, the shortest cycle that repeats at a position wins and is extended
    over all its back-to-back repeats; the scan resumes after it, so loops never overlap.
    """
    if max_cycle < 1:
        raise ValueError(f"max_cycle must be >= 1, got {max_cycle}.")
    moves = [(number, step.action) for number, step in enumerate(steps, start=1) if not is_thought(step.action)]
    actions = [action for _, action in moves]
    loops: list[ActionLoop] = []
    start = 0
    while start < len(actions):
        for length in range(1, max_cycle + 1):
            repeats = _repeats(actions, start, length)
            if repeats >= 2:
                end = start + length * repeats - 1
                loops.append(
                    ActionLoop(
                        start_step=moves[start][0],
                        end_step=moves[end][0],
                        cycle=actions[start : start + length],
                        repeats=repeats,
                    )
                )
                start = end + 1
                break
        else:
            start += 1
    return loops


def parse_failures(
    steps: Sequence[Step], end_reason: str, max_steps: int, max_cycle: int = MAX_CYCLE
) -> FailureSignals:
    """All failure signals of a trajectory that ended for `end_reason` under a `max_steps` budget.

    Raises ValueError when end_reason is unknown or contradicts the steps, which would mean the
    record and the budget passed in do not belong together.
    """
    if end_reason not in END_REASONS:
        raise ValueError(f"unknown end_reason {end_reason!r}; accepted: {', '.join(END_REASONS)}.")
    exhausted = None
    if end_reason == "exhausted":
        if len(steps) < 2 or steps[-1].action != steps[-2].action:
            raise ValueError("end_reason 'exhausted' but the last two actions are not the same.")
        exhausted = Exhaustion(step=len(steps), action=steps[-1].action)
    budget = None
    if end_reason == "max_steps":
        if len(steps) != max_steps:
            raise ValueError(f"end_reason 'max_steps' but {len(steps)} steps were taken with max_steps={max_steps}.")
        budget = StepBudget(max_steps=max_steps)
    return FailureSignals(
        nothing_happens=find_nothing_happens(steps),
        loops=find_action_loops(steps, max_cycle),
        exhausted=exhausted,
        budget=budget,
    )
