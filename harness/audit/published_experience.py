"""The published Reflexion runs as the insight stage's experience, without replaying them.

HotpotQA's CoT logs keep every trial's scratchpad, so a published log is read as the run directory it makes
(`harness.audit.hotpotqa_runs`) and its trials become experience as a run of ours does. HumanEval's logs keep
implementations and reflections, but ExpeL wrote no critique instructions for code, so the insight stage takes no
HumanEval experience. ALFWorld's log keeps, per environment, its reflections (one per failed trial) and the trial it was solved in, but no
trajectory. So a training task is an environment solved on its second trial, and the critic reads: the task
sentence; for the failed trial, the log's outcome alone (a line saying the log keeps no trajectory of it) and,
with insights.read_reflections, the reflection the published agent wrote after it; for the success, the ALFWorld
expert planner's play of the same game (data/alfworld/expert_trajectories.json), labelled as such in the records.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.audit.expert_trajectories import EXPERT_FILE, SOURCE, published_tasks, reflecting, solved_after_failing
from harness.audit.published import PublishedTask
from harness.audit.hotpotqa_runs import condition_name, published_records
from harness.errors import ConfigError
from harness.records.insights import ExperienceTask, ExperienceTrial
from harness.records.propagation import ExpertTrajectories, StudyTask
from harness.reflection.insights import experience_tasks

FAILED_TRIAL_TEXT = "(The published log keeps no trajectory of this trial: it ended without completing the task.)"
READS = (
    "Each training task is an environment of the published Reflexion ALFWorld run solved on its second trial. "
    "The critic reads the task sentence; the failed first trial as the published log has it (no trajectory: the "
    f"line {FAILED_TRIAL_TEXT!r}) followed by the reflection written after it (insights.read_reflections); and the "
    "success as the ALFWorld expert planner's play of the same game (the log keeps no trajectory of the agent's "
    "own success). All-success critiques read the tasks' expert plays."
)


def published_study_tasks() -> list[StudyTask]:
    """The published run's environments solved on their second trial, in the log's order, as training tasks."""
    return _study_tasks(solved_after_failing(published_tasks()))


def published_entry_tasks(envs: Sequence[str] | None = None) -> list[StudyTask]:
    """Every environment of the published run that wrote a reflection (or those of `envs`), in the log's order, each
    as a task whose failed trial shows its first reflection: the entry study's. ConfigError names an env that wrote
    none."""
    found = reflecting(published_tasks())
    known = [task.task_id for task in found]
    unknown = [env for env in envs or [] if env not in known]
    if unknown:
        raise ConfigError(f"scenario.envs names {unknown[0]}, which wrote no reflection in the published log; "
                          f"accepted: {', '.join(known)}.")
    return _study_tasks([task for task in found if envs is None or task.task_id in envs])


def _study_tasks(published: list[PublishedTask]) -> list[StudyTask]:
    experts = {e.env_id: e for e in ExpertTrajectories.model_validate_json(EXPERT_FILE.read_text()).trajectories}
    missing = [task.task_id for task in published if task.task_id not in experts]
    if missing:
        raise ConfigError(f"{EXPERT_FILE} holds no expert play of {missing[0]}; write it again with "
                          "python -m harness.cli.expert_plays.")
    tasks = []
    for task in published:
        expert = experts[task.task_id]
        trials = [
            ExperienceTrial(trajectory=FAILED_TRIAL_TEXT, success=False, reflection=task.reflections[0].strip()),
            ExperienceTrial(trajectory=expert.trajectory, success=True),
        ]
        tasks.append(StudyTask(
            experience=ExperienceTask(id=task.task_id, task=expert.task, trials=trials),
            game_id=expert.game_id, trial_texts=["published_outcome_only", "expert_planner"],
        ))
    return tasks


def published_reflections() -> dict[str, str]:
    """Every environment of the published run that wrote a reflection -> its first one: the off-task donors."""
    return {task.task_id: task.reflections[0].strip() for task in published_tasks() if task.reflections}


def published_hotpotqa_experience(log: Path) -> list[ExperienceTask]:
    """A published HotpotQA CoT log's questions in its order, each its logged trials (scratchpads, outcomes, and the
    reflection written after each), as the critic reads a run of ours; a log that is no reflexion run is refused by
    `published_records` in one sentence."""
    records = published_records(log)
    return experience_tasks(records, condition_name(log), list(dict.fromkeys(r.task_id for r in records)))


def evaluation_games() -> dict[str, str]:
    """Every environment of the published run -> its game id: the tasks a library's evaluation draws from."""
    from harness.audit.expert_trajectories import env_games

    games = env_games()
    return {task.task_id: games[task.task_id] for task in published_tasks()}


__all__ = ["READS", "SOURCE", "evaluation_games", "published_entry_tasks", "published_hotpotqa_experience", "published_reflections",
           "published_study_tasks"]
