"""`python run.py` in a subprocess, as a user runs it, timed in three parts and with its peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
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
    peak_tree_rss_mb: float
    """Peak of the resident memory summed over the process and its children (ALFWorld engine workers), sampled."""
    cpu_s: float
    """User and system CPU seconds of the process and the children it waited for (its engine workers)."""
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
    sampler = TreeRss(process.pid)
    sampler.start()
    stderr = process.stderr.read()  # drained as it comes, so a chatty run cannot block on a full pipe
    # wait4, not wait: it reports this child's own peak memory, not the maximum over every child so far.
    _, status, usage = os.wait4(process.pid, 0)
    sampler.stop()
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
        peak_tree_rss_mb=sampler.peak_kb / 1024,
        cpu_s=usage.ru_utime + usage.ru_stime,
        records=read_trials(run_dir),
    )


SAMPLE_S = 0.1


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pids: set[int]) -> set[int]:
    """Processes whose parent is in `pids`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent in pids:
            found.add(int(entry.name))
    return found


class TreeRss:
    """Samples the resident memory of a process and its children every SAMPLE_S seconds; keeps the peak sum."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.is_set():
            tree = {self.pid} | _children({self.pid})
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(pid) for pid in tree))
            self._stop.wait(SAMPLE_S)
