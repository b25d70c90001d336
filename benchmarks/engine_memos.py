"""Benchmark and proof: the engine's memos and copies (envs/alfworld_memos.py) change no text, save CPU, on every game.

    python -m benchmarks.engine_memos [--games 134] [--plan-steps 60]

First one process translates every game into a scratch translations folder (`env.translation_cache`). Then
two processes side by side, one with the memos reading that folder and one without any memo (the only
difference): each plays every game twice through envs.alfworld, (1) following the planner's plan until won,
(2) a scripted episode (look, inventory, an unknown command, then the first admissible command, 8 times), reset
twice. Every printed text and admissible list is hashed per game. Also measured, on the first games: a game's
translation against unpickling it (what the folder saves a process's first reset of the game): the plain one,
all an engine without the plan makes (envs/alfworld_replanning.py), and both, a planner's.
Checks: the planner wins every game both ways; every game's hash is equal both ways.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks._entry_point import ROOT
from benchmarks._output import Check, add_output_arguments, at_least, finish

NAME = "engine_memos"
SMOKE = {"games": 3, "plan_steps": 10}
SCRIPT = ("look", "inventory", "fly to the moon")
FIRST_COMMANDS = 8
PERSIST_SAMPLE = 8


def play_game(game: Any, plan_steps: int) -> dict[str, Any]:
    """The planner's episode and the scripted one; their text hashed, the engine's CPU timed."""
    from envs.alfworld import AlfworldEpisode

    text = hashlib.sha256()
    cpu = {"reset": 0.0, "resets": 0, "step": 0.0, "steps": 0}

    def timed(kind: str, call: Any) -> Any:
        started = time.process_time()
        result = call()
        cpu[kind] += time.process_time() - started
        cpu[kind + "s"] += 1
        text.update(json.dumps([result.observation, result.won, list(result.admissible_commands)]).encode())
        return result

    with AlfworldEpisode(game, max_episode_steps=None, policy_commands=True) as episode:
        result = timed("reset", episode.reset)
        while not result.won and episode.steps < plan_steps and result.policy_commands:
            result = timed("step", partial(episode.step, result.policy_commands[0]))
        won, plan_length = result.won, episode.steps
    with AlfworldEpisode(game, max_episode_steps=None) as episode:
        for _ in range(2):
            result = timed("reset", episode.reset)
            for action in SCRIPT:
                result = timed("step", partial(episode.step, action))
            for _ in range(FIRST_COMMANDS):
                result = timed("step", partial(episode.step, result.admissible_commands[0]))
    return {"game": game.game_id, "won": won, "plan_steps": plan_length, "sha256": text.hexdigest(), **cpu}


def persisted_cache_figures(games: list[Any]) -> dict[str, float]:
    """Seconds to translate a game against unpickling its translation: the plain one (all an engine without the
    plan makes), and both (a planner's engine)."""
    from fast_downward.interface import pddl2sas as translate  # the translator itself, under the memos

    seconds: dict[str, list[float]] = {"plain": [], "both": [], "unpickle_plain": [], "unpickle_both": []}
    sizes = []
    for game in games[:PERSIST_SAMPLE]:
        data = json.loads(game.game_file.read_text())
        results, spent = [], []
        for flag in (False, True):
            started = time.process_time()
            results.append(translate(data["pddl_domain"], data["pddl_problem"], optimize=flag))
            spent.append(time.process_time() - started)
        seconds["plain"].append(spent[0])
        seconds["both"].append(sum(spent))
        for name, kept in (("unpickle_plain", results[0]), ("unpickle_both", results)):
            blob = pickle.dumps(kept)
            started = time.process_time()
            pickle.loads(blob)
            seconds[name].append(time.process_time() - started)
            if name == "unpickle_plain":
                sizes.append(len(blob))
    figures = {f"{name}_s": round(statistics.median(values), 4) for name, values in seconds.items()}
    return {**figures, "pickle_kb_plain": round(statistics.median(sizes) / 1024, 1)}


def translate_all(games: list[Any]) -> None:
    """Fill the translations folder: both translations of every game, as a planner's first reset makes them
    (an engine without the plan reads the plain one only)."""
    from envs.alfworld_memos import install_memos

    translate = install_memos()["translation"]  # under the deferral of the optimized one: made here, now
    for game in games:
        data = json.loads(game.game_file.read_text())
        for flag in (False, True):
            translate(data["pddl_domain"], data["pddl_problem"], optimize=flag)


def worker(side: str, folder: Path, games: int, plan_steps: int) -> None:
    """One side: play the games and print one JSON line per game, then the persisted-cache figures."""
    import envs.alfworld_engine
    from envs.alfworld import list_games
    from envs.alfworld_memos import keep_translations_in, memos_installed

    chosen = list_games()[:games]
    keep_translations_in(folder)
    if side == "translate":
        translate_all(chosen)
        return
    if side == "without":
        envs.alfworld_engine.install_memos = lambda: {}  # the one difference between the two sides
    for game in chosen:
        print(json.dumps(play_game(game, plan_steps)), flush=True)
    if memos_installed() != (side == "with"):
        raise RuntimeError(f"the {side!r} side played {'without' if side == 'with' else 'with'} the memos")
    if side == "with":
        print(json.dumps({"persisted": persisted_cache_figures(chosen)}), flush=True)


def side(name: str, folder: Path, args: argparse.Namespace) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "benchmarks.engine_memos", "--side", name, "--folder", str(folder)]
    command += ["--games", str(args.games), "--plan-steps", str(args.plan_steps)]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)


def collect(process: subprocess.Popen[str]) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    stdout, _ = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"a side of the benchmark exited with {process.returncode}")
    games, persisted = {}, {}
    for line in stdout.splitlines():
        row = json.loads(line)
        if "persisted" in row:
            persisted = row["persisted"]
        else:
            games[row["game"]] = row
    return games, persisted


def per_call(rows: dict[str, dict[str, Any]], kind: str) -> float:
    return round(sum(r[kind] for r in rows.values()) / sum(r[kind + "s"] for r in rows.values()), 4)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine_memos", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=134)
    parser.add_argument("--plan-steps", type=int, default=60, help="planner steps before a game counts as lost")
    parser.add_argument("--side", choices=("translate", "with", "without"), help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    if args.side:
        worker(args.side, args.folder, args.games, args.plan_steps)
        return {}
    if args.smoke:
        vars(args).update(SMOKE)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="translations-") as folder:
        collect(side("translate", Path(folder), args))
        translated_s = round(time.perf_counter() - started, 1)
        with_memos, without = side("with", Path(folder), args), side("without", Path(folder), args)
        (fast, persisted), (slow, _) = collect(with_memos), collect(without)
    same = sum(fast[g]["sha256"] == slow[g]["sha256"] for g in fast)
    figures = {
        "games": len(fast),
        "won_with_memos": sum(r["won"] for r in fast.values()),
        "won_without": sum(r["won"] for r in slow.values()),
        "identical_text": same,
        "reset_cpu_s": {"with": per_call(fast, "reset"), "without": per_call(slow, "reset")},
        "step_cpu_s": {"with": per_call(fast, "step"), "without": per_call(slow, "step")},
        "persisted_translation": persisted,
        "translating_every_game_s": translated_s,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    checks: list[Check] = [
        at_least("games the planner wins with the memos", figures["won_with_memos"], len(fast)),
        at_least("games the planner wins without them", figures["won_without"], len(slow)),
        at_least("games whose text is identical both ways", same, len(fast)),
    ]
    rows = [
        ("reset CPU s", figures["reset_cpu_s"]["with"], figures["reset_cpu_s"]["without"]),
        ("step CPU s", figures["step_cpu_s"]["with"], figures["step_cpu_s"]["without"]),
    ]
    settings = {"games": args.games, "plan_steps": args.plan_steps}
    note = (
        f"the translations folder turns {persisted.get('plain_s')} s of a process's first reset of a game into "
        f"{persisted.get('unpickle_plain_s')} s ({persisted.get('pickle_kb_plain')} KB a game); for a planner's engine, "
        f"{persisted.get('both_s')} s into {persisted.get('unpickle_both_s')} s"
    )
    return finish(NAME, args, settings, (("measure", "with memos", "without"), rows), figures, checks, (note,))


if __name__ == "__main__":
    main()
