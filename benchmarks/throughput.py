"""Benchmark: ALFWorld episodes per minute over HTTP at several max_concurrency values, against the latency server.

    python -m benchmarks.throughput [--delay-ms 500] [--concurrency 1 4 16] [--games 32] [--max-steps 10]
                                    [--engine-workers N] [--translations cold|warm]

Each concurrency value is one `python run.py` (model=openai-compatible, llm.cache.mode=off, strategy=no_memory,
1 trial, the first `--games` games) whose every model call goes to benchmarks/latency_server.py, which answers
from a cache recorded with SmolLM2-135M (benchmarks/fixtures/) after `--delay-ms`. Episodes per minute count
the trial loop only (the manifest's start to the last record); the speed-up is over concurrency 1 (target: >= 12 at 16).
The loop plays the pairs of one trial concurrently, so `--games` should be at least the highest concurrency.
ALFWorld's engine runs in `env.engine_workers` processes (default: the machine's cores; `--engine-workers 1`
keeps it in the run's process, one step at a time). Each run has a translations folder (`env.translation_cache`)
of its own: `cold` (default) starts every run empty, so each translates its games once; `warm` fills one folder
before the first run (untimed) and every run reads it, as a run after an earlier one does.

How close to the limit: a run at concurrency c cannot take less than the longer of its LLM waits (the longest
episode's calls one after another, or all calls spread over c slots) and its engine CPU spread over the
machine's cores (timing.env_cpu_s; the harness's own CPU is left out, so this ideal is optimistic). The ideal
speed-up is the concurrency-1 loop time over that bound; `share` is how much of it the run achieved. Engine CPU
per episode is the records' timing.env_cpu_s; peak RSS is sampled over the run's process and its workers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._entry_point import ROOT, run_entry_point
from benchmarks._output import Check, add_output_arguments, at_least, finish
from benchmarks.latency_server import LatencyServer

NAME = "throughput"
FIXTURE = ROOT / "benchmarks" / "fixtures" / "alfworld32_no_memory_smollm2.jsonl.gz"
TARGET_SPEEDUP = 12.0
CORES = len(os.sched_getaffinity(0))
SMOKE = {"games": 2, "max_steps": 2, "delay_ms": 100.0, "concurrency": [1, 2]}
# The key only has to be present: the latency server never reads it.
API_KEY_ENV = {"OPENAI_API_KEY": "latency-server-needs-no-key", "NO_PROXY": "127.0.0.1,localhost"}


def translations_for(concurrency: int, args: argparse.Namespace, scratch: Path) -> Path:
    """The run's translations folder: its own empty one (cold), or the one filled before the first run (warm)."""
    return scratch / ("translations" if args.translations == "warm" else f"translations_c{concurrency}")


def fill_translations(folder: Path, games: int) -> None:
    """Translate the first `games` games into `folder`, as the benchmark's runs would."""
    command = [sys.executable, "-m", "benchmarks.engine_memos", "--side", "translate"]
    subprocess.run([*command, "--folder", str(folder), "--games", str(games)], cwd=ROOT, check=True)


def run_at(concurrency: int, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    """One run at `concurrency` against a fresh latency server; its figures."""
    overrides = [
        "model=openai-compatible",
        "model.model=smollm2-135m",
        "strategy=no_memory",
        "env.set=null",
        f"env.first_n={args.games}",
        f"env.max_steps={args.max_steps}",
        "experiment.trials=1",
        f"experiment.max_concurrency={concurrency}",
        "llm.cache.mode=off",
        f"llm.cache.path={scratch / 'unused_cache.jsonl'}",
        f"env.translation_cache={translations_for(concurrency, args, scratch)}",
    ]
    if args.engine_workers is not None:
        overrides.append(f"env.engine_workers={args.engine_workers}")
    with LatencyServer(args.cache, delay_s=args.delay_ms / 1000) as server:
        try:
            run = run_entry_point(
                [*overrides, f"model.base_url={server.base_url}"], scratch / f"c{concurrency}", API_KEY_ENV
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
    env_s = sum(r.timing.env_s for r in run.records)
    engine_cpu = sum(r.timing.env_cpu_s or 0.0 for r in run.records)
    delay_s = args.delay_ms / 1000
    llm_bound = max(
        max(r.llm_calls for r in run.records) * delay_s, sum(r.llm_calls for r in run.records) * delay_s / concurrency
    )
    return {
        "concurrency": concurrency,
        "episodes": episodes,
        "steps": sum(r.steps for r in run.records),
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
        "ideal_loop_s": round(max(llm_bound, engine_cpu / CORES), 2),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=FIXTURE, help="recorded answers for the latency server")
    parser.add_argument("--delay-ms", type=float, default=500.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--engine-workers", type=int, default=None, help="env.engine_workers (default: the run's)")
    parser.add_argument("--translations", choices=("cold", "warm"), default="cold", help="see above")
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    if args.smoke:
        vars(args).update(SMOKE)
    if 1 not in args.concurrency:
        parser.error("--concurrency needs 1: the speed-up is measured against it")
    with tempfile.TemporaryDirectory(prefix="throughput-") as scratch:
        if args.translations == "warm":
            fill_translations(translations_for(1, args, Path(scratch)), args.games)
        runs = [run_at(n, args, Path(scratch)) for n in sorted(args.concurrency)]
    base = runs[0]
    for run in runs:
        run["speedup"] = round(run["episodes_per_min"] / base["episodes_per_min"], 2)
        run["ideal_speedup"] = round(base["loop_s"] / run["ideal_loop_s"], 2)
        run["share_of_ideal"] = round(run["speedup"] / run["ideal_speedup"], 2)
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
        "episodes_per_min",
        "speedup",
        "ideal_speedup",
        "share_of_ideal",
    )
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k not in ("out", "smoke")}
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
        ),
    )


if __name__ == "__main__":
    main()
