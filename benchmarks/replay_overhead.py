"""Benchmark: what the harness costs on top of ALFWorld, replaying the committed five-condition run.

    python -m benchmarks.replay_overhead [--runs 1]

Runs `python run.py experiment=five_conditions_demo` in replay mode from tests/fixtures/five_conditions/ (no model
is loaded: REFLEXION_HARNESS_MODEL_DIR points at an empty directory, and the run fails if anything lands there)
and sets its wall time against the seconds spent inside ALFWorld (the records' timing.env_s: every reset and
step, waiting for the engine worker included; the worker loads the engine while the run starts, so that load is
in startup only where the run's own setup does not cover it). Target: whole process <= 1.2x ALFWorld time. Also split out:
startup (imports, Hydra, planning), the trial loop, what follows it (metrics, summary, report plots), and
inside the loop what is neither ALFWorld nor the cache lookups. With `--runs` > 1 the run with the median
process time is reported.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._entry_point import ROOT, TimedRun, run_entry_point
from benchmarks._output import add_output_arguments, at_most, finish

NAME = "replay_overhead"
CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"
TARGET_RATIO = 1.2
SMOKE_OVERRIDES = ["env.first_n=1", "experiment.trials=1"]  # one game's first trial: still all in the cache


def replay(scratch: Path, index: int, extra: list[str]) -> TimedRun:
    no_models = scratch / f"no-models-{index}"
    no_models.mkdir()
    run = run_entry_point(
        ["experiment=five_conditions_demo", "llm.cache.mode=replay", f"llm.cache.path={CACHE}", *extra],
        scratch / f"run-{index}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
    )
    if any(no_models.iterdir()):
        raise RuntimeError("the replay assembled or loaded a model; its timing would not be the harness's")
    return run


def breakdown(run: TimedRun) -> dict[str, float]:
    """Where the process's seconds went."""
    alfworld = sum(r.timing.env_s for r in run.records)
    cache = sum(r.timing.llm_s for r in run.records)
    in_trials = sum(r.timing.wall_s for r in run.records)
    return {
        "process_s": run.wall_s,
        "startup_s": run.startup_s,
        "loop_s": run.loop_s,
        "alfworld_s": alfworld,
        "cache_lookups_s": cache,
        "rest_of_trials_s": in_trials - alfworld - cache,  # prompts, parsing, reflection sources, memory
        "between_trials_s": run.loop_s - in_trials,  # planning trials, appending records
        "after_loop_s": run.finish_s,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.replay_overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="replays, one after another; the median is reported")
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    extra = SMOKE_OVERRIDES if args.smoke else []
    with tempfile.TemporaryDirectory(prefix="replay-overhead-") as scratch:
        runs = sorted((replay(Path(scratch), i, extra) for i in range(args.runs)), key=lambda run: run.wall_s)
    median = runs[len(runs) // 2]
    seconds = {key: round(value, 2) for key, value in breakdown(median).items()}
    alfworld = seconds["alfworld_s"]
    figures = {
        **seconds,
        "records": len(median.records),
        "steps": sum(r.steps for r in median.records),
        "process_over_alfworld": round(median.wall_s / alfworld, 3),
        "loop_over_alfworld": round(median.loop_s / alfworld, 3),
        "all_process_s": [round(run.wall_s, 2) for run in runs],
    }
    checks = [
        at_most("whole process / ALFWorld time", figures["process_over_alfworld"], TARGET_RATIO),
        at_most("trial loop / ALFWorld time", figures["loop_over_alfworld"], TARGET_RATIO),
    ]
    rows = [(key.removesuffix("_s"), value, f"{value / alfworld:.2f}x") for key, value in seconds.items()]
    return finish(
        NAME,
        args,
        {"runs": args.runs, "overrides": extra},
        (("part", "seconds", "of ALFWorld time"), rows),
        figures,
        checks,
    )


if __name__ == "__main__":
    main()
