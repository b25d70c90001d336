"""How every benchmark reports: its figures and its checks against targets as tables on stdout, and as JSON."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Check:
    """One figure against its target."""

    measure: str
    value: float
    target: str
    passed: bool


def at_least(measure: str, value: float, bound: float) -> Check:
    return Check(measure, round(value, 3), f">= {bound:g}", value >= bound)


def at_most(measure: str, value: float, bound: float) -> Check:
    return Check(measure, round(value, 3), f"<= {bound:g}", value <= bound)


def add_output_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """--out and --smoke, the same for every benchmark."""
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / f"{name}.json", help="where the JSON goes")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: checks the plumbing, measures nothing")


def machine() -> dict[str, Any]:
    """What the figures depend on. The load average, read at the end, counts the benchmark itself (about 1 on a
    quiet machine); well above the CPU count it marks a contended run."""
    return {
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
    }


def markdown_table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def verdict(check: Check) -> str:
    return "pass" if check.passed else "FAIL"


def finish(
    name: str,
    args: argparse.Namespace,
    settings: dict[str, Any],
    rows: tuple[tuple[str, ...], list[tuple[Any, ...]]],
    figures: dict[str, Any],
    checks: list[Check],
    notes: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Print the benchmark's table and its checks, write everything as JSON to args.out, and return it."""
    result = {
        "benchmark": name,
        "smoke": args.smoke,
        "settings": settings,
        "figures": figures,
        "checks": [asdict(check) for check in checks],
        "machine": machine(),
    }
    header, body = rows
    print(markdown_table(header, body))
    if checks:
        print()
        print(
            markdown_table(
                ("measure", "value", "target", "result"), [(c.measure, c.value, c.target, verdict(c)) for c in checks]
            )
        )
    for note in notes:
        print(note)
    if args.smoke:
        print("(smoke run: tiny sizes, the figures say nothing about performance)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {args.out}")
    return result
