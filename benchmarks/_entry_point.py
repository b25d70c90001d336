"""`python run.py` in a subprocess, as a user runs it, timed in three parts and with its peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from harness.records import TRIALS_FILE, TrialRecord, read_manifest, read_trials

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class TimedRun:
    """One finished run of the entry point."""

    run_dir: Path
    wall_s: float
    """Process start to exit."""
    startup_s: float
    """Process start to the manifest's start: imports, Hydra, validation, planning."""
    loop_s: float
    """The manifest's start to the last record's write (trials.jsonl's mtime): every trial, nothing after."""
    max_rss_mb: float
    """Peak resident memory of the process (ru_maxrss of the waited-for child)."""
    records: list[TrialRecord]

    @property
    def finish_s(self) -> float:
        """After the last record: metrics, summary, report and plots, interpreter exit."""
        return self.wall_s - self.startup_s - self.loop_s


def run_entry_point(overrides: list[str], run_dir: Path, env: dict[str, str] | None = None) -> TimedRun:
    """Run `python run.py progress=false <overrides> hydra.run.dir=<run_dir>`; raises RuntimeError if it fails."""
    command = [sys.executable, str(ROOT / "run.py"), "progress=false", *overrides, f"hydra.run.dir={run_dir}"]
    launched = datetime.now(timezone.utc)
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    stderr = process.stderr.read()  # drained as it comes, so a chatty run cannot block on a full pipe
    # wait4, not wait: it reports this child's own peak memory, not the maximum over every child so far.
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else "no output"
        raise RuntimeError(f"`{' '.join(command[1:])}` exited with {process.returncode}: {last}")
    manifest = read_manifest(run_dir)
    assert manifest is not None
    # Not the manifest's ended_at: that comes after the metrics and summary are written.
    last_record = datetime.fromtimestamp((run_dir / TRIALS_FILE).stat().st_mtime, timezone.utc)
    return TimedRun(
        run_dir=run_dir,
        wall_s=wall,
        startup_s=(manifest.started_at - launched).total_seconds(),
        loop_s=(last_record - manifest.started_at).total_seconds(),
        max_rss_mb=usage.ru_maxrss / 1024,  # kilobytes on Linux
        records=read_trials(run_dir),
    )
