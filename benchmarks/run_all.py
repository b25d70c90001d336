"""Every benchmark in one invocation: one after another, each in its own process, so none disturbs another.

    python -m benchmarks.run_all [--smoke] [--only throughput peak_rss] [--out benchmarks/results/all.json]

Each runs with its defaults (the settings of the final measurement; `--smoke` passes on its tiny sizes), prints
its own table as it finishes, and writes its JSON beside this one's. At the end: one table with every target
and whether it passed, and one JSON holding every benchmark's result. A benchmark that fails is reported as
failed with its last error line; the others still run. Other settings: run a benchmark by itself.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._entry_point import ROOT
from benchmarks._output import RESULTS_DIR, machine, markdown_table

BENCHMARKS = (
    "throughput", "engine_memos", "replay_overhead", "llama_speed", "peak_rss", "report_html", "diagnosis_truth",
    "identity_length",
)
# Figures without a target that still belong in the summary.
REPORTED = {
    "throughput": ("alfworld_bound_speedup",),
    "engine_memos": ("reset_cpu_s.with", "reset_cpu_s.without", "step_cpu_s.with", "step_cpu_s.without"),
    "llama_speed": ("prefix_reuse.reused_share",),
    "peak_rss": ("peak_rss_mb", "peak_tree_rss_mb", "replayed_without_model_mb", "model_file_mb"),
    "report_html": ("write_report_s", "dom_content_loaded_ms", "first_contentful_paint_ms"),
}


def run_one(name: str, out: Path, smoke: bool) -> dict[str, Any]:
    """Run `python -m benchmarks.<name>`; its JSON, or a record of its failure."""
    print(f"\n## {name}\n", flush=True)
    started = time.perf_counter()
    command = [sys.executable, "-m", f"benchmarks.{name}", "--out", str(out), *(["--smoke"] if smoke else [])]
    process = subprocess.run(command, cwd=ROOT, stderr=subprocess.PIPE, text=True, check=False)
    seconds = round(time.perf_counter() - started, 1)
    if process.returncode != 0:
        lines = process.stderr.strip().splitlines()
        error = lines[-1] if lines else f"exit code {process.returncode}"
        print(f"{name} failed: {error}", flush=True)
        return {"benchmark": name, "error": error, "seconds": seconds}
    return {**json.loads(out.read_text()), "seconds": seconds}


def figure(figures: dict[str, Any], dotted: str) -> Any:
    value: Any = figures
    for part in dotted.split("."):
        value = value[part]
    return value


def summary_rows(results: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for result in results:
        name = result["benchmark"]
        if "error" in result:
            rows.append((name, "(did not finish)", "-", "-", f"ERROR: {result['error']}"))
            continue
        for check in result["checks"]:
            rows.append(
                (name, check["measure"], check["value"], check["target"], "pass" if check["passed"] else "FAIL")
            )
        for key in REPORTED.get(name, ()):
            rows.append((name, key, figure(result["figures"], key), "(reported)", "-"))
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_all", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS))
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "all.json")
    parser.add_argument("--smoke", action="store_true", help="every benchmark at its tiny sizes")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    results = [run_one(name, args.out.with_name(f"{name}.json"), args.smoke) for name in args.only]
    combined = {"smoke": args.smoke, "machine": machine(), "results": results}
    print("\n## Summary\n")
    print(markdown_table(("benchmark", "measure", "value", "target", "result"), summary_rows(results)))
    args.out.write_text(json.dumps(combined, indent=2) + "\n")
    print(f"written to {args.out}")
    return combined


if __name__ == "__main__":
    main()
