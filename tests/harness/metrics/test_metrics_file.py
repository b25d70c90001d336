"""metrics.json replaces what lies at its path: a symlink a user left there is never followed."""

from __future__ import annotations

from pathlib import Path

from harness.metrics.run import METRICS_FILE, run_metrics, write_metrics
from harness.records import RunPlan
from tests.harness.factories import make_record

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"


def test_a_symlink_at_metrics_json_is_replaced_and_its_target_left_alone(tmp_path: Path) -> None:
    outside = tmp_path / "V"
    outside.write_text("keep\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / METRICS_FILE).symlink_to(outside)
    records = [make_record(0, "Take the mug.", task=MUG), make_record(1, None, True, task=MUG)]
    write_metrics(run, run_metrics(records, RunPlan(conditions=["self_diagnosis"], tasks=None, trials=2), {MUG: "Mug"}))
    assert outside.read_text() == "keep\n"
    assert not (run / METRICS_FILE).is_symlink() and (run / METRICS_FILE).is_file()
