"""A run killed with SIGKILL at an arbitrary moment resumes with every trial exactly once."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from harness.records import TRIALS_FILE, read_trials
from tests.runner import ROOT

pytestmark = pytest.mark.slow

RUN = (
    "progress=false",
    "model=smollm2-135m",
    "env.set=smoke",
    "env.max_steps=12",
    "experiment.trials=3",
    "llm.cache.mode=off",
)


def complete_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_mid_run_then_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = [sys.executable, str(ROOT / "run.py"), *RUN, f"hydra.run.dir={run_dir}"]
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    trials = run_dir / TRIALS_FILE
    deadline = time.monotonic() + 600
    while complete_lines(trials) < 1 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be killed mid-way"
    process.send_signal(signal.SIGKILL)
    process.wait()
    kept = trials.read_bytes()
    assert kept.count(b"\n") >= 1
    # Also leave the torn line a kill during a write would leave.
    trials.write_bytes(kept + b'{"schema_version": 1, "task_id": "pick_')

    resumed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    assert "torn last line" in resumed.stderr
    assert trials.read_bytes().startswith(kept), "records written before the kill must be kept as they were"

    records = read_trials(run_dir)
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys))
    by_task: dict[str, list[int]] = defaultdict(list)
    for record in records:
        by_task[record.task_id].append(record.trial)
    assert len(by_task) == 2
    for task, trials_played in by_task.items():
        mine = sorted((r for r in records if r.task_id == task), key=lambda r: r.trial)
        assert sorted(trials_played) == list(range(len(mine)))
        solved_at = next((r.trial for r in mine if r.success), None)
        assert len(mine) == (solved_at + 1 if solved_at is not None else 3)
    manifest_text = (run_dir / "manifest.json").read_text()
    assert '"status": "finished"' in manifest_text
