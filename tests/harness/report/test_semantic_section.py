"""report.md's semantic section measures as the condition table does: each repeat's chain on its own, pooled as a
mean over chains, and frozen at the run's `metrics.frozen_threshold`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.metrics.semantic import EmbeddingCache
from harness.records import MANIFEST_FILE, TRIALS_FILE
from harness.report._combine import combine
from harness.report._runs import load_runs
from harness.report._semantic import SemanticReport, semantic_report
from tests.harness.fake_embedder import FAKE_MODEL, FakeEmbedder

SEMANTIC_THRESHOLD = 0.9
"""Low enough for the fake embedder's bag of words to find repeats in the demo's reflections."""


def _semantic(run: Path) -> SemanticReport:
    runs = load_runs([run])
    return semantic_report(runs, combine(runs), EmbeddingCache(FakeEmbedder(), FAKE_MODEL), SEMANTIC_THRESHOLD)


def _rates(report: SemanticReport) -> list[tuple[str, float | None, float | None, int, int]]:
    """Per condition: both mean rates and both frozen counts."""
    return [
        (c.label, c.comparison.mean_rrr, c.comparison.mean_semantic_rrr, c.comparison.n_frozen,
         c.comparison.n_frozen_semantic)
        for c in report.conditions
    ]  # fmt: skip


def _with_repeat_one(run: Path) -> None:
    """Every record of `run` played again as `repeat: 1` (the manifest's experiment.repeats: 2): two equal chains."""
    lines = [line for line in (run / TRIALS_FILE).read_text().splitlines() if line.strip()]
    again = [json.dumps({**json.loads(line), "repeat": 1}) for line in lines]
    (run / TRIALS_FILE).write_text("\n".join(lines + again) + "\n")
    (run / "metrics.json").unlink()
    manifest = json.loads((run / MANIFEST_FILE).read_text())
    manifest["config"]["experiment"]["repeats"] = 2
    (run / MANIFEST_FILE).write_text(json.dumps(manifest))


def test_semantic_rrr_pools_repeats_per_chain_not_into_one_memory(
    five_conditions_run: Path, copy_run: Callable[[Path], Path]
) -> None:
    # Two equal chains per task: a mean over chains is each chain's value, as difflib's RRR beside it stays. One memory
    # of both chains interleaved would count each reflection of the second chain as a repeat of the first's.
    once = _rates(_semantic(five_conditions_run))
    twice_run = copy_run(five_conditions_run)
    _with_repeat_one(twice_run)
    twice = _rates(_semantic(twice_run))
    assert ("self_diagnosis", pytest.approx(2 / 3), pytest.approx(5 / 6), 3, 3) in once
    assert twice == once
