"""Benchmark: what one sandboxed execution costs, against a bare `python -c` subprocess.

    python benchmarks/sandbox_overhead.py [--runs 30] [--json results/benchmarks/sandbox_overhead.json]

Runs a passing one-assert test through envs.sandbox `--runs` times, one at a time, and the same
number of bare interpreter starts; prints the medians and the overhead, and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from envs.sandbox import AssertTests, run_tests

CODE = "def add(a, b):\n    return a + b\n"
TESTS = AssertTests(asserts=["assert add(1, 2) == 3"])


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", type=Path, default=Path("results/benchmarks/sandbox_overhead.json"))
    args = parser.parse_args()
    sandbox = [timed(lambda: run_tests(CODE, TESTS)) for _ in range(args.runs)]
    bare = [timed(lambda: subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)) for _ in range(args.runs)]
    figures = {
        "runs": args.runs,
        "sandbox_median_s": round(statistics.median(sandbox), 4),
        "sandbox_p90_s": round(sorted(sandbox)[int(0.9 * (args.runs - 1))], 4),
        "bare_python_median_s": round(statistics.median(bare), 4),
    }
    figures["overhead_median_s"] = round(figures["sandbox_median_s"] - figures["bare_python_median_s"], 4)
    print("| measure | seconds |\n|---|---|")
    for key, value in figures.items():
        if key != "runs":
            print(f"| {key} | {value} |")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
