"""The ALFWorld expert planner's play of the published Reflexion run's games: the published logs keep each
environment's reflections and outcome but no trajectory, so a success the critic compares against is the planner's.

`python -m harness.cli.expert_plays` plays every environment of the published run that wrote a reflection
(the planner's shortest plan, replanned at each step) and rewrites data/alfworld/expert_trajectories.json: the
propagation study's training tasks are those solved after failing, the entry study reads them all, and the location
check reads each play's first sightings. A test checks the shipped file's tasks against the log.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.audit.sources import DEFAULT_ROOT, LOADERS, discover_sources
from harness.audit.published import PublishedTask
from harness.records.propagation import ExpertTrajectory

SOURCE = "alfworld_runs/root/reflexion_run_logs"
ENV_TO_GAME = DEFAULT_ROOT / "alfworld_env_to_game.json"
EXPERT_FILE = Path(__file__).resolve().parents[2] / "data" / "alfworld" / "expert_trajectories.json"
_ROOM_START = "You are in the middle of a room."
_TASK_START = "Your task is to: "
_MAX_STEPS = 50


def published_tasks(source: str = SOURCE) -> list[PublishedTask]:
    """The published run's environments, through the audit's loader for its format."""
    (found,) = [s for s in discover_sources() if s.name == source]
    return LOADERS.get(found.format)(found)


def env_games() -> dict[str, str]:
    """env_N -> its game id, as the published run's ALFWorld loader ordered them."""
    return json.loads(ENV_TO_GAME.read_text())


def play_expert(env_id: str, game_id: str) -> ExpertTrajectory:
    """One game played by the planner's first command at each step, as the critic reads a trial."""
    # The engine is loaded only by this command: the study reads the shipped file.
    from envs.alfworld import AlfworldEpisode, list_games

    (game,) = [g for g in list_games() if g.game_id == game_id]
    with AlfworldEpisode(game, max_episode_steps=_MAX_STEPS, policy_commands=True) as episode:
        result = episode.reset()
        opening = result.observation
        room = opening[opening.index(_ROOM_START):opening.index(_TASK_START)].strip()
        lines, actions = [room], []
        while not result.done and result.policy_commands:
            action = result.policy_commands[0]
            result = episode.step(action)
            actions.append(action)
            lines.append(f"> {action}\n{result.observation.strip()}")
    return ExpertTrajectory(env_id=env_id, game_id=game_id, task=game.task_text, actions=actions,
                            trajectory="\n".join(lines), won=result.won)


def solved_after_failing(tasks: list[PublishedTask]) -> list[PublishedTask]:
    """Environments solved on their second trial: one failed trial with its reflection, then a success (the study
    keeps to one compare critique per task, so a build's cost is its task count)."""
    return [t for t in tasks if t.trial_solved == 1 and len(t.reflections) >= 1]


def reflecting(tasks: list[PublishedTask]) -> list[PublishedTask]:
    """Environments that wrote at least one reflection, in the log's order."""
    return [t for t in tasks if t.reflections]

