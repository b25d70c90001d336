"""ExpeL's few-shot retrieval at evaluation (`fewshot_strategy: task_similarity`), as an option: the examples before
an evaluation task are the successful trajectories of the most similar other tasks of the same task type.

ExpeL (agent/expel.py, `setup_vectorstore` and `update_dynamic_prompt_components`) keys each task that has a
success by its task text, keeps those of the current task's type (ALFWorld's type read from the task's words in
ExpeL's order: clean, hot, heat, cool, look, examine, two, put; one type per other benchmark), asks a nearest-
neighbour search by the task text's embedding for `num_fewshots * buffer_retrieve_ratio` of them, then walks them in
order of distance: each task's shortest success, skipping the current task, a task already chosen and a success over
the token limit, until `num_fewshots` are chosen. Here the search is exact (ExpeL's FAISS index is a flat L2 one:
exact too) and the embedder is handed in (the `semantic` extra's offline all-MiniLM-L6-v2 in place of ExpeL's
all-mpnet-base-v2, which this machine cannot fetch).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

EXPEL_FEWSHOTS = {"alfworld": 2, "hotpotqa": 6}
"""ExpeL's `num_fewshots` per benchmark (configs/benchmark/*.yaml)."""
BUFFER_RETRIEVE_RATIO = 4
"""ExpeL's `retrieval_kwargs.buffer_retrieve_ratio`: candidates searched per example wanted."""
# ExpeL's TASK_ENV_NAMES (utils.py): the first keyword found in an ALFWorld task names its type; "put" must be last.
_ALFWORLD_TYPES = (
    ("clean", "pick_clean_then_place"), ("hot", "pick_heat_then_place"), ("heat", "pick_heat_then_place"),
    ("cool", "pick_cool_then_place"), ("look", "look_at_obj"), ("examine", "look_at_obj"), ("two", "pick_two_obj"),
    ("put", "pick_and_place"),
)

Embed = Callable[[Sequence[str]], np.ndarray]
"""Texts -> one embedding row each."""


class Candidate(BaseModel):
    """A task with successes the retrieval may show: its text (the key) and its successful trajectories."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    task: str = Field(description="The task text, as ExpeL keys it (its remove_task_suffix).")
    successes: list[str] = Field(min_length=1, description="Its successful trajectories.")


def task_type(task: str, domain: str) -> str | None:
    """ExpeL's get_env_name_from_task: ALFWorld's type by the first keyword the task text holds; else the domain."""
    if domain != "alfworld":
        return domain
    return next((kind for word, kind in _ALFWORLD_TYPES if word in task), None)


def retrieve(task_id: str, task: str, pool: Sequence[Candidate], embed: Embed, domain: str,
             count: int | None = None, ratio: int = BUFFER_RETRIEVE_RATIO,
             fits: Callable[[str], bool] = lambda trajectory: True) -> list[tuple[Candidate, str]]:
    """The few-shot examples ExpeL would show before `task`: (candidate, its shortest success), nearest first.

    `fits(trajectory)` is ExpeL's token limit (`max_fewshot_tokens`: its longest hand-written example by default).
    """
    wanted = EXPEL_FEWSHOTS[domain] if count is None else count
    kind = task_type(task, domain)
    same = [c for c in pool if task_type(c.task, domain) == kind]
    if not same or wanted <= 0:
        return []
    keys = embed([c.task for c in same])
    query = embed([task])[0]
    distances = np.linalg.norm(keys - query, axis=1)
    # A stable sort: equal distances keep the pool's order (FAISS's flat index returns the lower id first).
    order = np.argsort(distances, kind="stable")[: wanted * ratio]
    chosen: list[tuple[Candidate, str]] = []
    for index in order:
        candidate = same[int(index)]
        shortest = min(candidate.successes, key=len)
        # The current task is skipped by its text, as ExpeL keys tasks by text (and by its id here).
        current = candidate.task_id == task_id or candidate.task == task
        if not fits(shortest) or current or candidate.task in [c.task for c, _ in chosen]:
            continue
        chosen.append((candidate, shortest))
        if len(chosen) == wanted:
            break
    return chosen
