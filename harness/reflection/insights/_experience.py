"""Experience from the harness's own runs, of any domain: each task's trials as the critic reads them.

ExpeL's critic reads `log_history(include_task=False)`: the trial after its task prompt, so neither the task's
instructions nor the reflections the actor had in its prompt (they sit before the task) reach it; a reflection
reaches the rules only through the behaviour it caused, or with `insights.read_reflections`.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records import TrialRecord
from harness.records.insights import ExperienceTask, ExperienceTrial


def trial_text(record: TrialRecord) -> str:
    """The trial after its task prompt: the scratchpad where the evidence keeps one (HotpotQA's Thought, Action and
    Observation), else every step as ALFWorld's log shows it (`> action` then the observation)."""
    scratchpad = getattr(record.attempt_details, "scratchpad", None)
    if isinstance(scratchpad, str):
        return scratchpad.strip()
    return "\n".join(f"> {step.action}\n{step.observation}" for step in record.trajectory).strip()


def experience_tasks(records: Sequence[TrialRecord], condition: str, task_ids: Sequence[str],
                     repeat: int = 0) -> list[ExperienceTask]:
    """One task per id in `task_ids` (their order) that the condition played, its trials in trial order."""
    tasks = []
    for task_id in task_ids:
        mine = sorted((r for r in records if r.task_id == task_id and r.condition == condition and r.repeat == repeat),
                      key=lambda r: r.trial)
        if mine:
            trials = [ExperienceTrial(trajectory=trial_text(r), success=r.success, reflection=r.reflection)
                      for r in mine]
            tasks.append(ExperienceTask(id=task_id, task=mine[0].task_text, trials=trials))
    return tasks
