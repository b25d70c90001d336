"""Benchmark and check: every domain's identity rule labels a reflection in time linear in its length (issue 39 item
15: ALFWorld's took 24 s for 4,000 sentences and 88 s for 8,000).

    python -m benchmarks.identity_length [--size CHARACTERS]

The text is made of each domain's labelled reflections (tests/fixtures/identity/<domain>_labels.jsonl, with their
names, negations and quotes), repeated to the size. CPU seconds of this process with the garbage collector paused
(its full collections scale with everything the process holds, not with the rule), the quicker of two texts of each
size (each new to the rule's per-process memory). Checks: the whole size within 10 s, and twice the text at most
3.2 times as long as half of it plus 0.3 s (linear doubles, quadratic quadruples).
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from benchmarks._entry_point import ROOT
from benchmarks._output import Check, add_output_arguments, at_most, finish

NAME = "identity_length"
FIXTURES = ROOT / "tests" / "fixtures" / "identity"
SIZE = 880_000
SMOKE_SIZE = 20_000
BOUND_S = 10.0
GROWTH = 3.2
SLACK_S = 0.3


def _rules() -> dict[str, Callable[[str, str], object]]:
    from harness.domains.alfworld.identity import reflection_identity as alfworld
    from harness.domains.hotpotqa.identity import reflection_identity as hotpotqa
    from harness.domains.humaneval.identity import reflection_identity as humaneval

    return {"alfworld": alfworld, "hotpotqa": hotpotqa, "humaneval": humaneval}


def _texts(name: str) -> tuple[str, str]:
    """A task and a text made of the labelled set's own reflections."""
    path = FIXTURES / f"{name}_labels.jsonl"
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return str(items[0]["task"]), " ".join(str(item["text"]) for item in items)


def _timed(label: Callable[[str, str], object], text: str, task: str) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        label(text, task)
        return time.process_time() - start
    finally:
        gc.enable()


def measure(label: Callable[[str, str], object], name: str, size: int) -> tuple[float, float]:
    """CPU seconds for half the size and for all of it."""
    task, base = _texts(name)
    label(base[:1000], task)  # the rule's tables, built once, are no part of the measure
    long = (base * (size // len(base) + 2))[: size + 1]

    def least(chars: int) -> float:
        return min(_timed(label, long[start : start + chars], task) for start in (0, 1))

    return least(size // 2), least(size)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=SIZE, help="characters of the longer text")
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    if args.smoke:
        args.size = SMOKE_SIZE
    rows: list[tuple[Any, ...]] = []
    checks: list[Check] = []
    figures: dict[str, Any] = {}
    for name, label in _rules().items():
        half, whole = measure(label, name, args.size)
        figures[name] = {"half_cpu_s": round(half, 3), "whole_cpu_s": round(whole, 3)}
        rows.append((name, args.size // 2, f"{half:.2f}", args.size, f"{whole:.2f}", f"{whole / max(half, 1e-9):.2f}"))
        checks.append(at_most(f"{name}: s CPU for {args.size} characters", whole, BOUND_S))
        checks.append(at_most(f"{name}: s CPU for twice the text", whole, GROWTH * half + SLACK_S))
    header = ("domain", "half, chars", "half, s CPU", "whole, chars", "whole, s CPU", "ratio")
    return finish(NAME, args, vars(args) | {"out": str(args.out)}, (header, rows), figures, checks)


if __name__ == "__main__":
    main()
