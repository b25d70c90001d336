"""metrics.frozen_threshold set on the command line reaches metrics.json, summary.md and report.md of a run's records:
the session's six-condition demo, finished, measured again at another threshold (a finished run's `metrics`
settings may change on a rerun, which plays no trial)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.metrics.run import METRICS_FILE
from harness.records import TRIALS_FILE
from tests.finished_runs import FIVE, documented_overrides
from tests.in_process import run_in_process


@pytest.fixture(scope="module")
def replay(five_conditions_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = Path(shutil.copytree(five_conditions_run, tmp_path_factory.mktemp("replay") / "run", symlinks=True))
    overrides = (*documented_overrides(FIVE), "metrics.frozen_threshold=0.75", "progress=false")
    result = run_in_process(*overrides, f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr[-3000:]
    assert (run / TRIALS_FILE).read_bytes() == (five_conditions_run / TRIALS_FILE).read_bytes(), "a trial was played"
    return run


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
