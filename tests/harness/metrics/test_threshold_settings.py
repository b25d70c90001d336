"""metrics.frozen_threshold set on the command line reaches metrics.json, summary.md and report.md of a replayed run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.metrics.run import METRICS_FILE
from tests.finished_runs import play
from tests.runner import ROOT

CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return play(tmp_path_factory.mktemp("replay") / "run", "experiment=five_conditions_demo",
                "metrics.frozen_threshold=0.75", "llm.cache.mode=replay", f"llm.cache.path={CACHE}")  # fmt: skip


def test_the_setting_moves_the_frozen_counts_of_the_same_records(replay: Path) -> None:
    metrics = json.loads((replay / METRICS_FILE).read_text())
    assert metrics["thresholds"] == {"similarity_threshold": 0.85, "frozen_threshold": 0.75}
    moved = 0
    for condition in metrics["conditions"]:
        rates = [t["rrr"] for t in condition["tasks"] if t["rrr"] is not None]
        assert condition["totals"]["frozen"] == sum(rate >= 0.75 for rate in rates)
        moved += sum(rate >= 0.5 for rate in rates) - condition["totals"]["frozen"]
    assert moved > 0, "no task of the replay has 0.5 <= RRR < 0.75: the setting would show nothing"


def test_summary_and_report_name_the_threshold_they_used(replay: Path) -> None:
    assert "frozen (RRR >= 0.75)" in (replay / "summary.md").read_text()
    report = (replay / "report.md").read_text()
    assert "frozen (RRR >= 0.75)" in report and "0.75 (set)" in report
    assert (replay / "threshold_curves.png").is_file()
