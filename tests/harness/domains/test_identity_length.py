"""Every domain's identity rule labels a reflection in time linear in its length (issue 39 item 15: ALFWorld's took
24 s for 4,000 sentences and 88 s for 8,000)."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.domains.alfworld.identity import reflection_identity as alfworld
from harness.domains.hotpotqa.identity import reflection_identity as hotpotqa
from harness.domains.humaneval.identity import reflection_identity as humaneval

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "identity"
SIZE = 880_000
"""Characters of the longer reflection: 880 KB."""
BOUND_S = 10.0
"""A generous bound for it on a shared machine (it takes about 1.5 s alone)."""
GROWTH = 3.2
"""Twice the text may take at most this many times as long: linear doubles, quadratic quadruples."""


def _texts(name: str) -> tuple[str, str]:
    """A task and a text made of the labelled set's own reflections (with their names, negations and quotes)."""
    items = [json.loads(line) for line in (FIXTURES / f"{name}_labels.jsonl").read_text(encoding="utf-8").splitlines()]
    return str(items[0]["task"]), " ".join(str(item["text"]) for item in items)


def _timed(label: Callable[[str, str], object], text: str, task: str) -> float:
    """CPU seconds of this process (the other xdist worker's load would distort wall-clock time), with the garbage
    collector paused: its full collections scale with everything the test process holds, not with the rule."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        label(text, task)
        return time.process_time() - start
    finally:
        gc.enable()


@pytest.mark.parametrize(("name", "label"), [("alfworld", alfworld), ("hotpotqa", hotpotqa), ("humaneval", humaneval)])
def test_labelling_is_linear_in_the_reflections_length(name: str, label: Callable[[str, str], object]) -> None:
    task, base = _texts(name)
    label(base[:1000], task)  # the rule's tables, built once, are no part of the measure
    long = (base * (SIZE // len(base) + 2))[: SIZE + 1]

    def least(size: int) -> float:
        # The quicker of two texts of the size (each new to the rule's per-process memory): a moment when the
        # machine was busy elsewhere shows in one of them, not in both.
        return min(_timed(label, long[start : start + size], task) for start in (0, 1))

    half = least(SIZE // 2)
    whole = least(SIZE)
    assert whole < BOUND_S, f"{name}: {whole:.1f} s for {SIZE} characters"
    assert whole < GROWTH * half + 0.3, f"{name}: {half:.2f} s for half, {whole:.2f} s for all"
