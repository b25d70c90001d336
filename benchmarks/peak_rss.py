"""Benchmark: peak memory (RSS) of a run with the embedded model, beside the model file's size.

    python -m benchmarks.peak_rss [--model qwen2.5-coder-1.5b] [--games 1] [--trials 1] [--max-steps 5]

Runs `python run.py` (the default experiment and condition, self_diagnosis, cut to `--games` games of the demo
set, `--trials` trials and `--max-steps` actions; llm.cache.mode=record into a scratch file, so the model
really runs) and reads the process's peak resident set from the kernel (ru_maxrss of that child, via wait4),
and the peak of the run's process and its ALFWorld engine workers together, sampled every 0.1 s.
Then the same run again, replayed from that scratch cache with no model loaded: the difference is what the
model costs. llama.cpp maps the GGUF file, so the weights it touched count in the RSS; actor and reflector
share one loaded instance, each keeping its KV prefix (n_ctx tokens of cache, one role's parked while the
other runs). Target: the peak over the process and its workers <= 2,600 MB for the default model.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._entry_point import run_entry_point
from benchmarks._output import add_output_arguments, at_most, finish
from benchmarks._models import model_option
from harness.llm._embedded_models import embedded_model

NAME = "peak_rss"
TARGET_MB = 2600.0
SMOKE = {"model": "smollm2-135m", "games": 1, "trials": 1, "max_steps": 1}
MB = 1024 * 1024


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peak_rss", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="an embedded model option (configs/model/)")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="llm.n_threads (default: all cores)")
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    if args.smoke:
        vars(args).update(SMOKE)
    model_key = model_option(args.model)["model"]
    overrides = [
        f"model={args.model}",
        f"env.first_n={args.games}",
        f"experiment.trials={args.trials}",
        f"env.max_steps={args.max_steps}",
    ]
    if args.threads:
        overrides.append(f"llm.n_threads={args.threads}")
    with tempfile.TemporaryDirectory(prefix="peak-rss-") as scratch_dir:
        scratch = Path(scratch_dir)
        cache = f"llm.cache.path={scratch / 'cache.jsonl'}"
        run = run_entry_point([*overrides, "llm.cache.mode=record", cache], scratch / "run")
        (scratch / "no-models").mkdir()
        replayed = run_entry_point(
            [*overrides, "llm.cache.mode=replay", cache],
            scratch / "replayed",
            env={"REFLEXION_HARNESS_MODEL_DIR": str(scratch / "no-models")},
        )
    model_mb = embedded_model(model_key).size / MB
    figures = {
        "peak_rss_mb": round(run.max_rss_mb, 1),
        "peak_tree_rss_mb": round(run.peak_tree_rss_mb, 1),
        "replayed_without_model_mb": round(replayed.max_rss_mb, 1),
        "model_share_mb": round(run.max_rss_mb - replayed.max_rss_mb, 1),
        "model_file_mb": round(model_mb, 1),
        "llm_calls": sum(r.llm_calls for r in run.records),
        "process_s": round(run.wall_s, 2),
    }
    settings = {"model": args.model, "overrides": overrides}
    rows = [(key, value) for key, value in figures.items()]
    checks = [at_most("peak RSS of the run and its workers, MB", run.peak_tree_rss_mb, TARGET_MB)]
    return finish(NAME, args, settings, (("measure", "value"), rows), figures, checks)


if __name__ == "__main__":
    main()
