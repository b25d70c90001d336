"""Which critiques ExpeL asks for, in its order, from a fold's training tasks: for each task with a success, each
failed trial against the success; then the tasks' first successes, shuffled and cut into chunks."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from harness.llm.prompts import read_prompt
from harness.records.insights import Critique, ExperienceTask, ExperienceTrial, ReflectionRef, TrialRef

ExpelDomain = Literal["alfworld", "hotpotqa"]
"""The domains ExpeL wrote critique instructions for that the harness plays."""


class InsightsOptions(BaseModel):
    """The `insights` settings: ExpeL's defaults (configs/agent/expel.yaml), and the one reading it never had."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_num_rules: StrictInt = Field(
        20, ge=1, description="From this many rules the critic is asked to REMOVE first; from 5 more, REMOVE is -3."
    )
    success_critique_num: StrictInt = Field(8, ge=1, description="At most this many successes per all-success critique.")
    read_reflections: bool = Field(
        False,
        description="Show the critic each compared failed trial's reflection after the trial (ExpeL strips them).",
    )


class PlannedCritique(BaseModel):
    """One critique request before the rules it will be shown: what it reads, as ExpeL formats it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    critique: Critique
    task: str | None = Field(description="compare: the task text; all_success: None (each success names its task).")
    success_history: str = Field(description="The success (compare), or the chunk's tasks and successes.")
    fail_history: str | None = Field(description="compare: the failed trial (and its reflection, if read).")


def _shown_reflection(trial: ExperienceTrial, read_reflections: bool) -> str | None:
    """The reflection the critic is shown after a failed trial: only with read_reflections, and only a real one."""
    text = (trial.reflection or "").strip()
    return text if read_reflections and text else None


def _failed_trial(domain: ExpelDomain, trial: ExperienceTrial, reflection: str | None) -> str:
    text = trial.trajectory.strip()
    if reflection is None:
        return text
    # Where ExpeL's reflector wrote it: after the trial and the domain's reflection prefix.
    return read_prompt("expel/failed_trial_with_reflection.txt").format(
        trajectory=text, reflection_prefix=read_prompt(f"expel/{domain}/reflection_prefix.txt"), reflection=reflection,
    )


def _compare(task: ExperienceTask, domain: ExpelDomain, read_reflections: bool) -> list[PlannedCritique]:
    planned = []
    failed = [(i, trial) for i, trial in enumerate(task.trials) if not trial.success]
    for s, success in ((i, trial) for i, trial in enumerate(task.trials) if trial.success):
        for f, trial in failed:
            shown = _shown_reflection(trial, read_reflections)
            read = [] if shown is None else [ReflectionRef(task_id=task.id, trial=f, text=trial.reflection or "")]
            critique = Critique(
                kind="compare", tasks=[task.id], reflections=read,
                trials=[TrialRef(task_id=task.id, trial=s), TrialRef(task_id=task.id, trial=f)],
            )
            planned.append(PlannedCritique(
                critique=critique, task=task.task, success_history=success.trajectory.strip(),
                fail_history=_failed_trial(domain, trial, shown),
            ))
    return planned


def divide(items: list, k: int, rng: random.Random) -> list[list]:
    """ExpeL's random_divide_list: shuffle in place, then ceil(n/k) chunks of equal size, the last shorter."""
    rng.shuffle(items)
    if len(items) <= k:
        return [items]
    count = math.ceil(len(items) / k)
    size = math.ceil(len(items) / count)
    return [items[i * size:(i + 1) * size] for i in range(count)]


Chunk = list[tuple[ExperienceTask, int]]


def success_chunks(tasks: Sequence[ExperienceTask], k: int, rng: random.Random) -> list[Chunk]:
    """Each task's first success, as (task, trial index), shuffled into chunks of at most k.

    ExpeL shuffles a fresh list once per training task and keeps the last, so this does too: a generator in
    ExpeL's state gives ExpeL's chunks. With no success at all it still gives one empty chunk, as ExpeL does (and
    with no training task none, where ExpeL fails).
    """
    firsts = [(task, next(i for i, t in enumerate(task.trials) if t.success))
              for task in tasks if any(t.success for t in task.trials)]
    chunks: list[Chunk] = []
    for _ in tasks:
        chunks = divide(list(firsts), k, rng)
    return chunks


def _all_success(chunk: Chunk) -> PlannedCritique:
    text = "\n\n".join(task.task + "\n" + task.trials[i].trajectory for task, i in chunk).strip()
    critique = Critique(kind="all_success", tasks=[task.id for task, _ in chunk],
                        trials=[TrialRef(task_id=task.id, trial=i) for task, i in chunk])
    return PlannedCritique(critique=critique, task=None, success_history=text, fail_history=None)


def plan_critiques(tasks: Sequence[ExperienceTask], domain: ExpelDomain, rng: random.Random,
                   options: InsightsOptions | None = None) -> list[PlannedCritique]:
    """ExpeL's critiques over a fold's training tasks (in the order they were played), in the order it asks them.

    A task never solved adds nothing. `rng` orders the success chunks: `random.Random(seed)` is ExpeL's global
    generator just after `random.seed(seed)`.
    """
    options = options or InsightsOptions()
    planned = [p for task in tasks for p in _compare(task, domain, options.read_reflections)]
    return planned + [_all_success(chunk) for chunk in success_chunks(tasks, options.success_critique_num, rng)]
