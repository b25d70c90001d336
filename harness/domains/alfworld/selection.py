"""Which ALFWorld games a run plays, from the env config's filters."""

from __future__ import annotations

from pathlib import Path

from envs.alfworld import SPLIT_DIR, AlfworldGame, list_games, select_games
from harness.domains.alfworld.config import AlfworldEnvConfig
from harness.errors import GameNotFoundError


def choose_games(env: AlfworldEnvConfig, only: frozenset[str] | None = None) -> list[AlfworldGame]:
    """The games of this run, from the env config's filters; `only`: the held-out tasks to keep (None: all)."""
    try:
        games = list_games(Path(env.data_dir) if env.data_dir else None)
    except FileNotFoundError:
        raise GameNotFoundError(
            f"env.data_dir={env.data_dir} holds no ALFWorld games (no {SPLIT_DIR} folder in it); "
            "leave env.data_dir=null for the shipped games."
        ) from None
    chosen = select_games(
        games, names=env.games or None, task_types=env.task_types or None, set_name=env.set, first_n=env.first_n
    )
    chosen = [game for game in chosen if only is None or game.game_id in only]
    if not chosen:
        raise GameNotFoundError(
            f"env.games={env.games}, env.task_types={env.task_types}, env.set={env.set} "
            f"and env.frozen_in={env.frozen_in} together select no game; loosen one of them."
        )
    return chosen
