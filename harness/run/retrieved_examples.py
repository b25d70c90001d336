"""ExpeL's evaluation examples for a run (`insights.fewshots=task_similarity`): per evaluation task, the successful
training trajectories of the most similar other tasks of its type (`harness/reflection/insights/retrieval.py`),
written as the actor's examples.

The pool is every task's training successes, the evaluated task itself skipped: ExpeL's store is its whole
training run, so it too shows an evaluation task the training-time successes of the other tasks of its fold (a leak
of the fold split it has, kept here and said in docs/insights.md). ExpeL's token limit (`max_fewshot_tokens: auto`,
its longest hand-written example) is read in characters: an example may be at most as long as Reflexion's longest.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.llm.prompts import alfworld_react_examples
from harness.records.insights import ExperienceTask
from harness.reflection.insights import ExpelDomain
from harness.reflection.insights.retrieval import Candidate, Embed, retrieve


def _example(candidate: Candidate, trajectory: str) -> str:
    return f"Your task is to: {candidate.task}\n{trajectory.strip()}\n\n"


def retrieved_examples(tasks: Sequence[str], experience: Sequence[ExperienceTask], domain: ExpelDomain,
                       embed: Embed) -> dict[str, str]:
    """Each evaluation task id -> its examples' text ("" where none is found: the fixed examples stay)."""
    pool = [Candidate(task_id=t.id, task=t.task, successes=[trial.trajectory for trial in t.trials if trial.success])
            for t in experience if any(trial.success for trial in t.trials)]
    longest = max(len(text) for text in alfworld_react_examples().values())
    texts = {t.id: t.task for t in experience}
    found = {}
    for task_id in tasks:
        chosen = retrieve(task_id, texts.get(task_id, ""), pool, embed, domain, fits=lambda text: len(text) <= longest)
        found[task_id] = "".join(_example(candidate, trajectory) for candidate, trajectory in chosen)
    return found
