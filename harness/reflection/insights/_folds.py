"""ExpeL's folds (utils.py `get_split_eval_idx_list`): tasks grouped by how training went, each group shuffled and
dealt round the folds, so every fold gets its share of each outcome; a fold's tasks are evaluated with the rules
built from all the others."""

from __future__ import annotations

import random
from collections.abc import Sequence

from harness.records.insights import ExperienceTask


def outcome(task: ExperienceTask) -> str:
    """compare (solved after a failure), success (solved at once) or fail (never solved): ExpeL's three groups."""
    if not any(trial.success for trial in task.trials):
        return "fail"
    return "compare" if any(not trial.success for trial in task.trials) else "success"


def split_folds(tasks: Sequence[ExperienceTask], folds: int, rng: random.Random) -> list[list[str]]:
    """The task ids of each fold. ExpeL also groups by environment type (ALFWorld's six); here one group per
    outcome, as for HotpotQA."""
    split: list[list[str]] = [[] for _ in range(folds)]
    dealt = 0
    for group in ("compare", "success", "fail"):
        ids = [task.id for task in tasks if outcome(task) == group]
        rng.shuffle(ids)
        for task_id in ids:
            split[dealt % folds].append(task_id)
            dealt += 1
    return split
