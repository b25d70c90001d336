"""ExpeL's task-similarity retrieval on a small fixture whose answer is worked out by hand from ExpeL's algorithm
(agent/expel.py: same task type, the k * buffer_retrieve_ratio nearest task texts, each task's shortest success,
the current task, repeats and over-long successes skipped, stop at k): which trajectories, in which order."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.reflection.insights.retrieval import Candidate, retrieve, task_type

CURRENT = "put a clean mug in coffeemachine."
VECTORS = {
    CURRENT: (0.0, 0.0),
    "put a clean plate in countertop.": (1.0, 0.0),   # distance 1
    "clean some bowl and put it in cabinet.": (0.0, 2.0),  # distance 2
    "put a clean cloth in bathtubbasin.": (3.0, 0.0),  # distance 3
    "put a clean pan in countertop.": (0.5, 0.0),  # distance 0.5, but only an over-long success
    "put a hot mug in coffeemachine.": (0.1, 0.0),  # nearest of all, another task type
}


def _embed(texts: Sequence[str]) -> np.ndarray:
    return np.array([VECTORS[text] for text in texts])


def _pool() -> list[Candidate]:
    return [
        Candidate(task_id="current", task=CURRENT, successes=["> take mug 1"]),
        Candidate(task_id="hot", task="put a hot mug in coffeemachine.", successes=["> heat mug 1"]),
        Candidate(task_id="plate", task="put a clean plate in countertop.", successes=["> a long play", "> short"]),
        Candidate(task_id="bowl", task="clean some bowl and put it in cabinet.", successes=["> bowl"]),
        Candidate(task_id="cloth", task="put a clean cloth in bathtubbasin.", successes=["> cloth"]),
        Candidate(task_id="pan", task="put a clean pan in countertop.", successes=["> " + "x" * 50]),
    ]


def test_expel_s_keywords_name_the_task_type() -> None:
    assert task_type(CURRENT, "alfworld") == "pick_clean_then_place"
    assert task_type("put a hot mug in coffeemachine.", "alfworld") == "pick_heat_then_place"
    assert task_type("put two cd in safe.", "alfworld") == "pick_two_obj"
    assert task_type("examine the book with the desklamp.", "alfworld") == "look_at_obj"
    assert task_type("Which magazine was started first?", "hotpotqa") == "hotpotqa"


def test_the_nearest_other_tasks_of_the_type_give_their_shortest_success() -> None:
    chosen = retrieve("current", CURRENT, _pool(), _embed, "alfworld", fits=lambda t: len(t) <= 20)
    # ALFWorld's two: pan (0.5) is over the limit, plate (1) gives its shorter success, bowl (2) next; hot is
    # another type, the current task itself is never shown.
    assert [(c.task_id, shown) for c, shown in chosen] == [("plate", "> short"), ("bowl", "> bowl")]


def test_only_k_times_the_ratio_nearest_are_searched() -> None:
    # The current task is among those searched (ExpeL's store holds it too): one example with the ratio 3 searches
    # current, pan, plate and gives plate; with the ratio 2, current and pan, and gives none.
    fits = lambda t: len(t) <= 20  # noqa: E731
    assert [c.task_id for c, _ in retrieve("current", CURRENT, _pool(), _embed, "alfworld", 1, 3, fits)] == ["plate"]
    assert retrieve("current", CURRENT, _pool(), _embed, "alfworld", 1, 2, fits) == []
    # Without a limit, HotpotQA's count (6) of the four of the type: nearest first.
    chosen = retrieve("current", CURRENT, _pool(), _embed, "alfworld", 6)
    assert [c.task_id for c, _ in chosen] == ["pan", "plate", "bowl", "cloth"]


def test_a_run_s_evaluation_task_reads_the_retrieved_successes_in_place_of_the_fixed_examples() -> None:
    from harness.domains.alfworld.actor import actor_prompt
    from harness.llm.prompts import alfworld_base_prompt
    from harness.records.insights import ExperienceTask, ExperienceTrial
    from harness.run.retrieved_examples import retrieved_examples

    def trials(success: str) -> list[ExperienceTrial]:
        return [ExperienceTrial(trajectory="> look", success=False), ExperienceTrial(trajectory=success, success=True)]

    experience = [ExperienceTask(id=c.task_id, task=c.task, trials=trials(c.successes[-1])) for c in _pool()]
    examples = retrieved_examples(["current"], experience, "alfworld", _embed)
    # Two of the type, nearest first, the current task skipped; each as a task line and its success.
    assert examples["current"] == ("Your task is to: put a clean pan in countertop.\n> " + "x" * 50 + "\n\n"
                                   "Your task is to: put a clean plate in countertop.\n> short\n\n")
    prompt = actor_prompt("clean", [], "You are in the middle of a room.", [], examples=examples["current"])
    assert examples["current"] in prompt and alfworld_base_prompt("clean") not in prompt
    assert actor_prompt("clean", [], "You are in the middle of a room.", []).startswith(alfworld_base_prompt("clean"))
