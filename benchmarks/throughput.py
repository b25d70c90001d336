"""Benchmark: ALFWorld episodes per minute over HTTP at several max_concurrency values, against the latency server.

    python -m benchmarks.throughput [--delay-ms 500] [--concurrency 1 4 16] [--games 32] [--max-steps 10]
                                    [--engine-workers N] [--translations cold|warm] [--no-prefetch]
                                    [--answers recorded|scripted] [--repeats N]
                                    [--base-games N] [--study] [--profile] [--checkout DIR]

Each concurrency value is one `python run.py` (model=openai-compatible, llm.cache.mode=off, strategy=no_memory,
1 trial, the first `--games` games) whose every model call goes to benchmarks/latency_server.py, which answers
after `--delay-ms` from a cache recorded with SmolLM2-135M (benchmarks/fixtures/; its 32 games, 10 steps), or with
`--answers scripted` by the scripted walker (benchmarks/scripted_walker.py: any games, any length, every episode
its whole step budget). Episodes per minute count the trial loop only (the manifest's start to the last record);
the speed-up is over concurrency 1 (target: >= 12 at 16), which `--base-games N` plays on the first N games only
(scripted answers: every episode has the same length). The loop plays the pairs of one trial concurrently, so
`--games` should be at least the highest concurrency. ALFWorld's engine runs in `env.engine_workers` processes
(default: two per core, started as episodes overlap; `--engine-workers 1` keeps it in the run's process). Each run
has a translations folder (`env.translation_cache`) of its own: `cold` (default) starts every run empty, so each
translates its games once; `warm` fills one folder before the first run (untimed) and every run reads it, as a run
after an earlier one does; a cold run's workers translate the first wave's games while a prefetcher translates the
rest on idle CPU (envs/alfworld_prefetch.py; `--no-prefetch` turns it off). `--study` is the study-shaped preset: 134 games x 30 steps, scripted, warm, concurrency 1
(first 8 games), 16 and 64. `--checkout DIR` runs another checkout's run.py with the same settings, to pair two.

Per step (an action), from the loop's span: the run's own process's CPU (`harness_cpu_ms_per_step`: every thread,
its engine workers left out, sampled from /proc), the engine's CPU (`engine_cpu_ms_per_step`: the records'
timing.env_cpu_s) and the workers' whole CPU (`workers_cpu_ms_per_step`), and how long steps queued for an engine
worker busy with another episode's step (`engine_wait_ms_per_step`: timing.engine_wait_s). `--profile` attaches
py-spy to each run once its loop starts and writes the samples of whichever thread holds the GIL beside the JSON
(`<out>.c<N>.profile.txt`, collapsed stacks), and prints where the loop's went by the harness code that spent them.

The ideal (`ideal_loop_s`, and `bound` naming what sets it) is the longest of: the episodes played as chains of
their LLM waits, their engine CPU and the harness's CPU at the least a step any of the runs took (contention only
adds to it), nothing waiting, started in the loop's order as slots free up (`episodes`); that harness CPU of all
steps on one core, as the harness's Python holds one at most (`harness`); the harness's and the engine's CPU
(the workers' whole CPU where larger: the prefetcher's translations are in no record) spread over the machine's
cores (`cpu`). `--repeats N` plays each concurrency above 1 N times and shows the run of median loop time.
`share_of_ideal` is ideal_loop_s over loop_s; peak RSS is sampled over the run's process and its workers.
"""

from __future__ import annotations

import argparse
import heapq
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._entry_point import ROOT, loop_costs, run_entry_point
from benchmarks._output import Check, add_output_arguments, at_least, finish
from benchmarks.latency_server import LatencyServer
from harness.records import read_manifest

NAME = "throughput"
FIXTURE = ROOT / "benchmarks" / "fixtures" / "alfworld32_no_memory_smollm2.jsonl.gz"
TARGET_SPEEDUP = 12.0
CORES = len(os.sched_getaffinity(0))
SMOKE = {"games": 2, "max_steps": 2, "delay_ms": 100.0, "concurrency": [1, 2], "base_games": None}
STUDY = {
    "games": 134,
    "max_steps": 30,
    "concurrency": [1, 16, 64],
    "answers": "scripted",
    "translations": "warm",
    "base_games": 8,
}
"""--study: every game for 30 steps of the scripted walker, concurrency 1 on the first 8 games only (as the walk
gives every episode the same length, its episodes per minute are those of all 134)."""
# The key only has to be present: the latency server never reads it.
API_KEY_ENV = {"OPENAI_API_KEY": "latency-server-needs-no-key", "NO_PROXY": "127.0.0.1,localhost"}


def translations_for(concurrency: int, args: argparse.Namespace, scratch: Path, repeat: int = 0) -> Path:
    """The run's translations folder: its own empty one (cold), or the one filled before the first run (warm)."""
    return scratch / ("translations" if args.translations == "warm" else f"translations_c{concurrency}_{repeat}")


def fill_translations(folder: Path, games: int) -> None:
    """Translate the first `games` games into `folder`, as the benchmark's runs would."""
    command = [sys.executable, "-m", "benchmarks.engine_memos", "--side", "translate"]
    subprocess.run([*command, "--folder", str(folder), "--games", str(games)], cwd=ROOT, check=True)


def profile_path(concurrency: int, args: argparse.Namespace) -> Path | None:
    """Where --profile writes the run's samples at `concurrency`: beside the JSON of the figures."""
    return args.out.with_name(f"{args.out.stem}.c{concurrency}.profile.txt") if args.profile else None


def run_at(concurrency: int, args: argparse.Namespace, scratch: Path, repeat: int = 0) -> dict[str, Any]:
    """One run at `concurrency` against a fresh latency server; its figures."""
    games = args.base_games if concurrency == 1 and args.base_games else args.games
    overrides = [
        "model=openai-compatible",
        "model.model=smollm2-135m",
        "strategy=no_memory",
        "env.set=null",
        f"env.first_n={games}",
        f"env.max_steps={args.max_steps}",
        "experiment.trials=1",
        f"experiment.max_concurrency={concurrency}",
        "llm.cache.mode=off",
        f"llm.cache.path={scratch / 'unused_cache.jsonl'}",
        f"env.translation_cache={translations_for(concurrency, args, scratch, repeat)}",
    ]
    if args.engine_workers is not None:
        overrides.append(f"env.engine_workers={args.engine_workers}")
    if args.no_prefetch:
        overrides.append("env.prefetch_translations=false")
    cache = args.cache if args.answers == "recorded" else None
    with LatencyServer(cache, delay_s=args.delay_ms / 1000) as server:
        try:
            run = run_entry_point(
                [*overrides, f"model.base_url={server.base_url}"],
                scratch / f"c{concurrency}_{repeat}",
                API_KEY_ENV,
                root=args.checkout,
                profile=profile_path(concurrency, args),
            )
        except RuntimeError as error:
            if server.refused:  # the backend does not retry a 400, so the run stops at the first one
                raise RuntimeError(
                    f"{args.cache} has no answer for a request of this run; re-record it as "
                    f"benchmarks/fixtures/README.md says ({error})"
                ) from error
            raise
        served, peak = server.served, server.peak_in_flight
    episodes = len(run.records)
    steps = sum(r.steps for r in run.records)
    env_s = sum(r.timing.env_s for r in run.records)
    engine_cpu = sum(r.timing.env_cpu_s or 0.0 for r in run.records)
    waits = [r.timing.engine_wait_s for r in run.records if r.timing.engine_wait_s is not None]
    delay_s = args.delay_ms / 1000
    manifest = read_manifest(run.run_dir)
    order = {task: index for index, task in enumerate(manifest.tasks or [])} if manifest else {}
    started = sorted(run.records, key=lambda r: order.get(r.task_id, len(order)))  # the order the loop starts them
    calls = [r.llm_calls for r in started]
    return {
        "concurrency": concurrency,
        "episodes": episodes,
        "steps": steps,
        "llm_calls": served,
        "peak_calls_in_flight": peak,
        "loop_s": round(run.loop_s, 2),
        "process_s": round(run.wall_s, 2),
        "episodes_per_min": round(episodes / run.loop_s * 60, 2),
        "median_steps": statistics.median(r.steps for r in run.records),
        # Waiting for the engine (its lock, or its worker) counts here too when episodes overlap.
        "alfworld_s": round(env_s, 2),
        "engine_cpu_per_episode_s": round(engine_cpu / episodes, 3),
        "run_cpu_s": round(run.cpu_s, 2),
        "peak_rss_mb": round(run.peak_tree_rss_mb, 1),
        "loop_harness_cpu_s": run.loop_cpu_s,
        "loop_workers_cpu_s": run.loop_children_cpu_s,
        "engine_cpu_s": round(engine_cpu, 3),
        "harness_cpu_ms_per_step": per_step_ms(run.loop_cpu_s, steps),
        "engine_cpu_ms_per_step": per_step_ms(engine_cpu, steps),
        "workers_cpu_ms_per_step": per_step_ms(run.loop_children_cpu_s, steps),
        "engine_wait_ms_per_step": per_step_ms(sum(waits), steps) if waits else None,
        # The old ideal's LLM term: every call spread evenly over the slots (no episode is split so in fact).
        "llm_spread_s": round(max(max(calls), sum(calls) / concurrency) * delay_s, 2),
        "episodes_started": [[r.llm_calls * delay_s, r.timing.env_cpu_s or 0.0, r.steps] for r in started],
    }


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median loop time (the lower middle of an even count), with every run's loop time beside it."""
    chosen = sorted(runs, key=lambda run: run["loop_s"])[(len(runs) - 1) // 2]
    return {**chosen, "loop_s_repeats": [run["loop_s"] for run in runs]}


def schedule_s(durations: list[float], slots: int) -> float:
    """How long `durations` take when started in order, each as soon as one of `slots` is free (the loop's way)."""
    free_at = [0.0] * min(slots, len(durations))
    for duration in durations:
        heapq.heapreplace(free_at, free_at[0] + duration)
    return max(free_at, default=0.0)


def per_step_ms(seconds: float | None, steps: int) -> float | None:
    return round(seconds / steps * 1000, 1) if seconds is not None and steps else None


def ideal_loop(run: dict[str, Any], harness_floor_ms: float, cores: int | None = None) -> tuple[float, str]:
    """The least time the run's loop could take on this machine, and what sets it.

    `episodes`: each episode one chain of its LLM waits, its engine CPU (records' timing.env_cpu_s) and the harness's
    CPU at `harness_floor_ms` a step, nothing waiting, the chains started in the loop's order as slots free up;
    `harness`: that harness CPU of all steps on one core (its Python holds one at most); `cpu`: the harness's and the
    engine's CPU (or the workers' whole CPU, the prefetcher's included, where larger) spread over the machine's `cores`
    (default: this one's).
    """
    floor_s = harness_floor_ms / 1000
    chains = [llm_s + engine_s + steps * floor_s for llm_s, engine_s, steps in run["episodes_started"]]
    harness_s = floor_s * run["steps"]
    bounds = {
        "episodes": schedule_s(chains, run["concurrency"]),
        "harness": harness_s,
        # The workers' whole CPU where the records' engine CPU is less: the prefetcher's translations, for one.
        "cpu": (harness_s + max(run["engine_cpu_s"], run.get("loop_workers_cpu_s") or 0.0)) / (cores or CORES),
    }
    bound = max(bounds, key=lambda name: bounds[name])
    return round(bounds[bound], 2), bound


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=FIXTURE, help="recorded answers for the latency server")
    parser.add_argument("--delay-ms", type=float, default=500.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--engine-workers", type=int, default=None, help="env.engine_workers (default: the run's)")
    parser.add_argument("--translations", choices=("cold", "warm"), default="cold", help="see above")
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs at each concurrency above 1; the median loop's figures are shown"
    )
    parser.add_argument(
        "--no-prefetch", action="store_true", help="env.prefetch_translations=false (not for a checkout before it)"
    )
    parser.add_argument(
        "--checkout", type=Path, default=ROOT, help="run this checkout's run.py (default: this one), to pair two"
    )
    parser.add_argument(
        "--profile", action="store_true", help="py-spy samples of each run's loop, written beside the JSON"
    )
    parser.add_argument(
        "--answers", choices=("recorded", "scripted"), default="recorded", help="the latency server's (see above)"
    )
    parser.add_argument("--base-games", type=int, default=None, help="games of the concurrency-1 run (default: all)")
    parser.add_argument("--study", action="store_true", help="the study-shaped preset (see above)")
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    if args.study:
        vars(args).update(STUDY)
    if args.smoke:
        vars(args).update(SMOKE)
    if args.base_games and args.answers != "scripted":
        parser.error("--base-games needs --answers scripted: only its episodes all have one length")
    if 1 not in args.concurrency:
        parser.error("--concurrency needs 1: the speed-up is measured against it")
    with tempfile.TemporaryDirectory(prefix="throughput-") as scratch:
        if args.translations == "warm":
            fill_translations(translations_for(1, args, Path(scratch)), args.games)
        runs = [median_run([run_at(n, args, Path(scratch), i) for i in range(args.repeats if n > 1 else 1)])
                for n in sorted(args.concurrency)]
    base = runs[0]
    # The least CPU the harness spent a step in any run: what it needs, without what contention added.
    floor_ms = min((run["harness_cpu_ms_per_step"] for run in runs if run["harness_cpu_ms_per_step"]), default=0.0)
    for run in runs:
        run["ideal_loop_s"], run["bound"] = ideal_loop(run, floor_ms)
        run["speedup"] = round(run["episodes_per_min"] / base["episodes_per_min"], 2)
        # Episodes per minute, not loop times: concurrency 1 may play fewer games (--base-games).
        base_rate = base["episodes"] / base["loop_s"]
        run["ideal_speedup"] = round(run["episodes"] / run["ideal_loop_s"] / base_rate, 2)
        run["share_of_ideal"] = round(run["ideal_loop_s"] / run["loop_s"], 2)
    # Were the engine serialised, no concurrency would beat the serial run's loop time over its engine time.
    bound = round(base["loop_s"] / base["alfworld_s"], 2) if base["alfworld_s"] else None
    top = runs[-1]
    checks: list[Check] = []
    if top["concurrency"] >= 16:
        checks.append(at_least(f"speed-up at concurrency {top['concurrency']}", top["speedup"], TARGET_SPEEDUP))
    columns = (
        "concurrency",
        "episodes",
        "llm_calls",
        "peak_calls_in_flight",
        "loop_s",
        "process_s",
        "alfworld_s",
        "engine_cpu_per_episode_s",
        "peak_rss_mb",
        "harness_cpu_ms_per_step",
        "engine_cpu_ms_per_step",
        "workers_cpu_ms_per_step",
        "engine_wait_ms_per_step",
        "episodes_per_min",
        "speedup",
        "ideal_speedup",
        "share_of_ideal",
        "bound",
    )
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k not in ("out", "smoke")}
    profiles = [profile_note(run["concurrency"], args) for run in runs] if args.profile else []
    return finish(
        NAME,
        args,
        settings,
        (columns, [tuple(run[c] for c in columns) for run in runs]),
        {"runs": runs, "alfworld_bound_speedup": bound},
        checks,
        (
            f"{CORES} cores. Were the engine serialised, its share of the concurrency-1 loop would cap any speed-up "
            f"at {bound}x (Amdahl); engine CPU per episode at concurrency 1: {base['alfworld_s'] / base['episodes']:.3f} s "
            f"in the engine (alfworld_s / episodes), {base['engine_cpu_per_episode_s']} s of its CPU.",
            f"Ideal: the longest of the episodes played as chains of LLM waits and their own CPU (the harness's at "
            f"least {floor_ms} ms a step of these runs, the engine's) in the loop's order, that harness CPU on one core, "
            f"and the harness's and engine's CPU (the workers' where larger) over the {CORES} cores; `bound` names which.",
            *profiles,
        ),
    )


def profile_note(concurrency: int, args: argparse.Namespace) -> str:
    """Where the loop's GIL samples at `concurrency` went, the largest shares first, and the file holding them."""
    path = profile_path(concurrency, args)
    assert path is not None
    if not path.is_file():
        return f"concurrency {concurrency}: py-spy wrote no profile ({path})"
    samples, costs = loop_costs(path)
    lines = [f"concurrency {concurrency}: {samples} samples of the loop holding the GIL ({path}):"]
    return "\n".join([*lines, *(f"  {share:6.1%}  {owner}" for owner, share in costs)])


if __name__ == "__main__":
    main()
