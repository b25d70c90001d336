"""Benchmark and check: the ALFWorld ground truth's CPU per failed trial, and the planner's distance against a
breadth-first search over the engine's actions.

    python -m benchmarks.diagnosis_truth [--trials N] [--bfs-states N]

The trials are those of tests/fixtures/diagnosis/alfworld/items.jsonl (real failed trials of the committed replays,
15 to 30 steps). In this one process, after the engine is loaded (one reset of a game none of them plays), each trial's
ground truth (harness/domains/alfworld/diagnosis_truth.py) is computed three times and its thread CPU read: cold (the
first trial of its game in the process, which translates the game), warm (the trials after it on a game already
translated), and again (the memo by game and action prefix). Then, at three states along each trial where the
planner's distance is at most --bfs-depth (the first, the middle and the last such), the fewest steps to win by
breadth-first search (envs/alfworld_replay.fewest_steps) must equal the distance. Checks: a 30-step trial's warm ground truth within 2 s of CPU (median), a memoised one within
0.05 s, and no sampled state where the search finds another number of steps than the planner.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, TypeVar

from benchmarks._entry_point import ROOT
from benchmarks._output import Check, add_output_arguments, at_most, finish

NAME = "diagnosis_truth"
SMOKE = {"trials": 2, "bfs_depth": 3, "bfs_states": 20_000}
ITEMS = ROOT / "tests" / "fixtures" / "diagnosis" / "alfworld" / "items.jsonl"
WARM_UP_GAME = "pick_and_place_simple-Watch-None-Safe-219"


def _trials(limit: int | None) -> list[dict]:
    trials: dict[str, dict] = {}
    for line in ITEMS.read_text().splitlines():
        item = json.loads(line)
        trials.setdefault(item["trajectory"], item)
    ordered = sorted(trials.values(), key=lambda item: (item["task"], -len(item["steps"])))
    return ordered[:limit] if limit else ordered


_T = TypeVar("_T")


@dataclass(frozen=True)
class Timing:
    steps: int
    kind: str
    cpu_s: float
    again_s: float


def _cpu(call: Callable[[], _T]) -> tuple[float, _T]:
    started = time.thread_time()
    result = call()
    return time.thread_time() - started, result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=None, help="the first N trials only")
    parser.add_argument("--bfs-depth", type=int, default=5, help="search the states whose distance is at most this")
    parser.add_argument("--bfs-states", type=int, default=300_000, help="give a search up after this many states")
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    if args.smoke:
        args.trials, args.bfs_depth, args.bfs_states = SMOKE["trials"], SMOKE["bfs_depth"], SMOKE["bfs_states"]

    from envs.alfworld import list_games
    from envs.alfworld_replay import fewest_steps, replay
    from harness.domains.alfworld.diagnosis_line import budget_of
    from harness.domains.alfworld.diagnosis_truth import find_game, ground_truth
    from harness.domains.alfworld.signals import is_thought
    from harness.records.step import Step

    warm_up = next(game for game in list_games() if game.task_folder == WARM_UP_GAME)
    load_cpu, _ = _cpu(lambda: replay(warm_up, []))
    rows: list[tuple[Any, ...]] = []
    timings: list[Timing] = []
    seen_games: set[str] = set()
    checked = agreed = gave_up = 0
    for item in _trials(args.trials):
        steps = [Step(**step) for step in item["steps"]]
        budget = budget_of(steps)
        first_cpu, truth = _cpu(partial(ground_truth, item["task"], steps, budget))
        again_cpu, _ = _cpu(partial(ground_truth, item["task"], steps, budget))
        kind = "warm" if item["task"] in seen_games else "cold"
        seen_games.add(item["task"])
        timings.append(Timing(len(steps), kind, first_cpu, again_cpu))
        game = find_game(item["task"])
        moves = [step.action for step in steps if not is_thought(step.action)]
        distances = [result.distance for result in replay(game, moves)]
        searched: list[tuple[int, int, int | None]] = []
        near = [(index, d) for index, d in enumerate(distances) if d is not None and d <= args.bfs_depth]
        for index, distance in sorted({near[0], near[len(near) // 2], near[-1]}) if near else []:
            found = fewest_steps(game, moves[:index], max_depth=distance, max_states=args.bfs_states)
            searched.append((index, distance, found))
            checked += 1
            agreed += found == distance
            gave_up += found is None
        rows.append((item["task"].split("/")[0][:48], len(steps), kind, f"{first_cpu:.2f}", f"{again_cpu:.4f}",
                     truth.decisive_step, truth.category, "; ".join(f"{i}: {d}={f}" for i, d, f in searched)))
    thirty_warm = [t.cpu_s for t in timings if t.steps >= 30 and t.kind == "warm"] or [
        t.cpu_s for t in timings if t.steps >= 30
    ]
    figures = {
        "engine_load_cpu_s": round(load_cpu, 3),
        "trials": len(timings),
        "median_cpu_s": {kind: round(statistics.median([t.cpu_s for t in timings if t.kind == kind]), 3)
                         for kind in ("cold", "warm") if any(t.kind == kind for t in timings)},
        "thirty_step_cpu_s": [round(value, 3) for value in thirty_warm],
        "memoised_max_s": round(max(t.again_s for t in timings), 4),
        "bfs_states_checked": checked,
        "bfs_agreed": agreed,
        "bfs_gave_up": gave_up,
        "timings": [asdict(t) for t in timings],
    }
    checks: list[Check] = [at_most("memoised ground truth, s CPU (max)", max(t.again_s for t in timings), 0.05)]
    if thirty_warm:
        checks.append(at_most("30-step ground truth, s CPU (median)", statistics.median(thirty_warm), 2.0))
    checks.append(Check("states where the search differs from the planner", checked - agreed - gave_up, "== 0",
                        checked - agreed - gave_up == 0))
    header = ("game", "steps", "game was", "CPU s", "again s", "decisive", "category", "state: planner=search")
    return finish(NAME, args, vars(args) | {"out": str(args.out)}, (header, rows), figures, checks,
                  notes=(f"engine load (one reset of {WARM_UP_GAME}): {load_cpu:.2f} s CPU",))


if __name__ == "__main__":
    main()
