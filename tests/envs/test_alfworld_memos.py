"""The engine's memos: a game translated once per process, and once for all processes with a translations folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envs.alfworld import AlfworldEpisode, StepResult, list_games
from envs.alfworld_memos import install_memos

ROOT = Path(__file__).resolve().parents[2]
GAME = "pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004404_604165"


def episode_text(game_id: str, plan: bool) -> list[list]:
    """What an episode of the game shows at its reset and three commands, with or without the planner's plan."""
    game = next(g for g in list_games() if g.game_id == game_id)
    text = []
    with AlfworldEpisode(game, max_episode_steps=None, policy_commands=plan) as episode:
        result = episode.reset()
        text.append(_shown(result))
        for action in ["look", (result.policy_commands or result.admissible_commands)[0], "fly to the moon"]:
            result = episode.step(action)
            text.append(_shown(result))
    return text


def _shown(result: StepResult) -> list:
    """A step's text as JSON gives it back (lists, not tuples), so this process's equals another's."""
    plan = None if result.policy_commands is None else list(result.policy_commands)
    return [result.observation, list(result.admissible_commands), plan]


# A fresh process: `episode_text` with or without the planner's plan ("plan"/"no-plan") and a translations folder,
# then the text it printed and what the memos did.
PLAY = """
import json, sys
from pathlib import Path
from envs.alfworld_memos import install_memos, keep_translations_in, memos_installed
from tests.envs.test_alfworld_memos import episode_text
keep_translations_in(Path(sys.argv[3]) if len(sys.argv) > 3 else None)
text = episode_text(sys.argv[1], sys.argv[2] == "plan")
memoized = memos_installed()
memos = install_memos()
persisted = memos.get("persisted")
reads, writes = getattr(persisted, "reads", None), getattr(persisted, "writes", None)
print(json.dumps({"text": text, "memoized": memoized, "reads": reads, "writes": writes}))
"""


# Prepended to PLAY: textworld as installed, nothing memoized or replaced.
WITHOUT_MEMOS = "import envs.alfworld_engine\nenvs.alfworld_engine.install_memos = lambda: {}\n"


def play(*folder: str, memos: bool = True, plan: bool = True) -> dict:
    script = PLAY if memos else WITHOUT_MEMOS + PLAY
    run = subprocess.run(
        [sys.executable, "-c", script, GAME, "plan" if plan else "no-plan", *folder],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_second_reset_of_a_game_translates_nothing() -> None:
    memos = install_memos()
    game = next(g for g in list_games() if g.game_id == GAME)
    with AlfworldEpisode(game, max_episode_steps=None) as episode:
        episode.reset()
        misses = memos["translation"].misses
        episode.reset()
    assert memos["translation"].misses == misses, "a second reset of the same game translated it again"
    assert memos["parse"].hits > 0


def test_the_memos_change_no_text_and_are_used() -> None:
    memos = install_memos()
    game = next(g for g in list_games() if g.game_id == GAME)
    with AlfworldEpisode(game, max_episode_steps=None) as episode:
        episode.reset()
        before = memos["logic_parse"].hits
        episode.step("look")
        episode.step("inventory")
    assert memos["logic_parse"].hits > before, "the grammar's conditions were parsed again at every step"
    for plan in (True, False):
        # Without memos in a fresh process; with them here, where they are installed.
        without, memoized = play(memos=False, plan=plan), episode_text(GAME, plan)
        assert without["memoized"] is False
        assert without["text"] == memoized, f"plan={plan}"
    assert memoized[0][2] is None and without["text"][0][2] is None, "a plan-less engine reported a plan"


def test_a_translations_folder_serves_the_next_process_the_same_text(tmp_path: Path) -> None:
    folder = tmp_path / "translations"
    plain = episode_text(GAME, plan=True)  # in this process, with its memos and no folder
    first = play(str(folder))
    second = play(str(folder))
    assert (first["reads"], first["writes"]) == (0, 2), "the first process translates the game twice and keeps both"
    assert (second["reads"], second["writes"]) == (2, 0), "the next process reads both translations"
    assert len(list(folder.glob("*.pickle"))) == 2
    assert plain == first["text"] == second["text"]


def test_an_engine_without_the_plan_translates_a_game_once(tmp_path: Path) -> None:
    folder = tmp_path / "translations"
    first = play(str(folder), plan=False)
    assert (first["reads"], first["writes"]) == (0, 1), "the replanner's translation was made for an engine without it"
    planned = play(str(folder))
    assert (planned["reads"], planned["writes"]) == (1, 1), "the planner's engine reads the plain one, makes its own"


def test_an_engine_without_the_plan_refuses_to_replan() -> None:
    install_memos()
    game = next(g for g in list_games() if g.game_id == GAME)
    with AlfworldEpisode(game, max_episode_steps=None) as episode:
        episode.reset()
        state = episode._engine.unwrapped._pddl_state
        with pytest.raises(RuntimeError, match="started without the planner's plan"):
            state.replan({})


def test_a_torn_translation_is_made_again(tmp_path: Path) -> None:
    folder = tmp_path / "translations"
    play(str(folder))
    for path in folder.glob("*.pickle"):
        path.write_bytes(path.read_bytes()[:100])
    again = play(str(folder))
    assert (again["reads"], again["writes"]) == (0, 2)
    assert again["text"] == episode_text(GAME, plan=True)
