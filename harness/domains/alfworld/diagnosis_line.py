"""One line of `reflexion-diagnosis` on ALFWorld: {"domain": "alfworld", "task": <game id>, "steps": [{"action",
"observation"}, ...] (every recorded step, thoughts included), "reflection"}; the steps are replayed here.

An optional "max_steps" gives the trial's step budget; without it the budget is the number of steps, unless the last
step repeats the one before it (the actor's repeated-action stop ended the trial before its budget: then unknown).
"""

from __future__ import annotations

from typing import Any

from harness.domains.alfworld.diagnosis_claims import reflection_claims
from harness.domains.alfworld.diagnosis_truth import ground_truth
from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.step import Step


def _steps(value: object) -> list[Step]:
    if not isinstance(value, list):
        raise ValueError("'steps' must be a list of {\"action\", \"observation\"} objects, every recorded step in order.")
    steps = []
    for number, item in enumerate(value, start=1):
        if not (isinstance(item, dict) and isinstance(item.get("action"), str) and isinstance(item.get("observation"), str)):
            raise ValueError(f"'steps' item {number} must be an object with string 'action' and 'observation'.")
        steps.append(Step(action=item["action"], observation=item["observation"]))
    return steps


def budget_of(steps: list[Step], max_steps: object = None) -> int | None:
    """The step budget a line's trial had: `max_steps` if given, else as the module says."""
    if max_steps is not None:
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < len(steps):
            raise ValueError(f"'max_steps' must be a whole number of at least {len(steps)} (the steps given).")
        return max_steps
    stopped = len(steps) >= 2 and steps[-1].action == steps[-2].action
    return None if stopped else len(steps)


def line_diagnosis(line: dict[str, Any]) -> tuple[GroundTruth, ReflectionClaims]:
    """The ground truth of the line's trial and what its reflection claims; ValueError naming the bad field."""
    task = line.get("task")
    if not isinstance(task, str):
        raise ValueError("'task' must be the record's task id, '<task folder>/<trial folder>' of a shipped ALFWorld game.")
    steps = _steps(line.get("steps"))
    reflection = line.get("reflection")
    if not isinstance(reflection, str):
        raise ValueError("'reflection' must be the reflection's text (a string).")
    budget = budget_of(steps, line.get("max_steps"))
    try:
        truth = ground_truth(task, steps, budget)
    except ValueError as error:
        raise ValueError(f"'task': {error}") from error
    room = truth.facts.get("room", "")
    return truth, reflection_claims(reflection, steps, room if isinstance(room, str) else "")
