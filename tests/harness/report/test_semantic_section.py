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
from harness.report._semantic_section import semantic_section
from harness.report._threshold_section import report_thresholds
from harness.report.document import Document, render_markdown
from tests.harness.fake_embedder import FAKE_MODEL, FakeEmbedder

SEMANTIC_THRESHOLD = 0.9
"""Low enough for the fake embedder's bag of words to find repeats in the demo's reflections."""


def _semantic(run: Path) -> SemanticReport:
    runs = load_runs([run])
    cache = EmbeddingCache(FakeEmbedder(), FAKE_MODEL)
    return semantic_report(runs, combine(runs), cache, SEMANTIC_THRESHOLD, report_thresholds(runs))


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


def _at_frozen_threshold(run: Path, frozen_threshold: float) -> None:
    """`run` as if played with `metrics.frozen_threshold=<frozen_threshold>`: the report measures it there."""
    manifest = json.loads((run / MANIFEST_FILE).read_text())
    manifest["config"]["metrics"]["frozen_threshold"] = frozen_threshold
    (run / MANIFEST_FILE).write_text(json.dumps(manifest))
    (run / "metrics.json").unlink()


def test_the_semantic_tables_frozen_follows_metrics_frozen_threshold(
    five_conditions_run: Path, copy_run: Callable[[Path], Path]
) -> None:
    run = copy_run(five_conditions_run)
    _at_frozen_threshold(run, 0.6)
    [data] = load_runs([run])
    report = _semantic(run)
    table = {c.condition: c.totals.frozen for c in data.metrics.conditions}
    assert table["self_diagnosis"] == 1  # two of its three tasks have RRR 0.5: frozen at 0.5, not at 0.6
    for condition in report.conditions:
        rated = [t for t in condition.tasks if t.semantic_rrr is not None]
        assert condition.comparison.n_frozen == table[condition.label]
        semantic_frozen = sum(t.semantic_rrr >= 0.6 for t in rated)  # type: ignore[operator]
        assert condition.comparison.n_frozen_semantic == semantic_frozen
    sentence = render_markdown(Document("report", [semantic_section(report)]))
    assert "frozen: semantic RRR >= 0.6, as for RRR (difflib ratio >= 0.85)" in sentence
