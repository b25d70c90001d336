"""The published ALFWorld Reflexion run through the env_results importer, checked against the raw last trial."""

from __future__ import annotations

import json
from pathlib import Path

from harness.audit.env_results import load_env_results_run
from harness.metrics.core import reflection_repetition_rate

RUN = Path(__file__).resolve().parents[3] / "data" / "reflexion-logs" / "alfworld_runs" / "root" / "reflexion_run_logs"


def test_alfworld_reflexion_run() -> None:
    tasks = load_env_results_run(RUN, "alfworld", "alfworld_runs/root/reflexion_run_logs")
    raw = {entry["name"]: entry for entry in json.loads((RUN / "env_results_trial_14.json").read_text())}
    assert len(tasks) == len(raw) == 134
    assert {t.task_id: t.reflections for t in tasks} == {name: entry["memory"] for name, entry in raw.items()}
    assert sum(bool(t.reflections) for t in tasks) == 50
    assert all(t.solved for t in tasks)
    rates = [reflection_repetition_rate(t.reflections) for t in tasks]
    assert sum(rate is not None for rate in rates) == 31
    assert sum(rate is not None and rate >= 0.5 for rate in rates) == 16
