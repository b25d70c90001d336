"""data/alfworld/expert_trajectories.json against the published Reflexion ALFWorld log, without the engine: the same
environments as the training tasks the study selects (solved on their second trial, after one reflection), each
mapped to its game as the log's loader maps it, each trajectory the planner's commands, and each won."""

from __future__ import annotations

import re

import pytest

from envs.alfworld import DEFAULT_DATA_DIR, SPLIT_DIR, parse_game
from harness.audit.expert_trajectories import (
    EXPERT_FILE, SOURCE, env_games, published_tasks, reflecting, solved_after_failing,
)
from harness.records.propagation import ExpertTrajectories, ExpertTrajectory

SHIPPED = ExpertTrajectories.model_validate_json(EXPERT_FILE.read_text())
_FOLDER = re.compile(r"(?P<kind>[a-z_]+)-(?P<target>\w+)-(?P<mrecep>\w+)-(?P<recep>\w+)-\d+")


def test_the_file_holds_the_training_environments_among_those_that_reflected_in_the_log_s_order() -> None:
    tasks = published_tasks()
    selected = [t.task_id for t in tasks if t.solved and t.trial_solved == 1 and t.reflections]
    assert SHIPPED.source == SOURCE
    assert selected == [t.task_id for t in solved_after_failing(tasks)]
    assert len(selected) == 19 and len(tasks) == 134  # docs/propagation.md: 19 of 134
    # The command writes every environment that reflected (the entry study's); the propagation study's 19 first of all.
    shipped = [t.env_id for t in SHIPPED.trajectories]
    reflected = [t.task_id for t in reflecting(tasks)]
    assert set(selected) <= set(shipped) and shipped == [env for env in reflected if env in shipped]


def test_each_environment_is_its_game_and_its_task() -> None:
    games = env_games()
    split = DEFAULT_DATA_DIR / SPLIT_DIR
    for expert in SHIPPED.trajectories:
        assert expert.game_id == games[expert.env_id]
        game = parse_game(split / expert.game_id / "game.tw-pddl", split)
        assert expert.task == game.task_text, expert.env_id


@pytest.mark.parametrize("expert", SHIPPED.trajectories, ids=lambda e: e.env_id)
def test_each_trajectory_is_the_planner_s_won_play(expert: ExpertTrajectory) -> None:
    assert expert.won
    room, *steps = expert.trajectory.split("\n> ")
    assert room.startswith("You are in the middle of a room.") and "Your task is to" not in room
    assert [step.split("\n", 1)[0] for step in steps] == expert.actions
    # Won on the log's own terms: the target taken, then put in its receptacle or looked at under a lamp.
    folder = _FOLDER.fullmatch(expert.game_id.split("/")[0])
    assert folder is not None
    target, recep = folder["target"].lower(), folder["recep"].lower()
    assert any(re.fullmatch(rf"take {target} \d+ from .+", action) for action in expert.actions)
    if folder["kind"] == "look_at_obj_in_light":
        assert any(action.startswith(f"use {recep} ") for action in expert.actions)
    else:
        assert re.fullmatch(rf"put {target} \d+ in/on {recep} \d+", expert.actions[-1])
