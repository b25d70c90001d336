"""Watch a real `python run.py` from outside, kill it with SIGKILL on cue, and say which phase the kill hit."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from harness.records import MANIFEST_FILE, TRIALS_FILE, read_manifest
from tests.runner import ROOT

# Trials take seconds and an append milliseconds: 2 ms polling sees every record land, one at a time.
POLL_S = 0.002
# A kill this soon after a record landed counts as hitting the append (its write, fsync or bookkeeping); a
# trial takes a second or more, and a loaded machine can delay the watcher by a tenth.
APPEND_WINDOW_S = 0.25

Phase = Literal["startup", "trials", "append", "report"]


def _identity(path: Path) -> tuple[int, int, int] | None:
    """Inode, mtime and size: the manifest is replaced atomically, so any rewrite changes this."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


@dataclass
class WatchedRun:
    """One `python run.py` process on a run directory, and when (seconds after spawn) it did what.

    Only changes made after the spawn count, so a manifest left by an earlier, killed invocation is not
    mistaken for this one's.
    """

    process: subprocess.Popen[bytes]
    run_dir: Path
    spawned: float
    start_bytes: int
    start_manifest: tuple[int, int, int] | None
    lines: int = 0
    manifest_at: float | None = None
    finished_at: float | None = None
    lines_at: dict[int, float] = field(default_factory=dict)
    appends: list[float] = field(default_factory=list)
    _bytes: int = 0
    _manifest: tuple[int, int, int] | None = None

    @classmethod
    def start(cls, command: Sequence[str], run_dir: Path, env: dict[str, str], stderr: IO[bytes]) -> WatchedRun:
        trials = run_dir / TRIALS_FILE
        start_bytes, start_manifest = _size(trials), _identity(run_dir / MANIFEST_FILE)
        lines = trials.read_bytes().count(b"\n") if start_bytes else 0
        # Its own session, so the kill reaches anything it spawned and nothing else.
        process = subprocess.Popen(
            list(command), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True
        )
        run = cls(process, run_dir, time.monotonic(), start_bytes, start_manifest, lines)
        run._bytes, run._manifest = start_bytes, start_manifest
        return run

    def elapsed(self) -> float:
        return time.monotonic() - self.spawned

    def observe(self) -> None:
        """Note a grown trials.jsonl or a rewritten manifest."""
        now = self.elapsed()
        size = _size(self.run_dir / TRIALS_FILE)
        if size > self._bytes:
            self._bytes = size
            self.appends.append(now)
            self.lines = (self.run_dir / TRIALS_FILE).read_bytes().count(b"\n")
            self.lines_at.setdefault(self.lines, now)
        identity = _identity(self.run_dir / MANIFEST_FILE)
        if identity is not None and identity != self._manifest:
            self._manifest = identity
            self.manifest_at = self.manifest_at if self.manifest_at is not None else now
            manifest = read_manifest(self.run_dir)
            if manifest is not None and manifest.status == "finished" and self.finished_at is None:
                self.finished_at = now

    def wait_until(self, ready: Callable[[WatchedRun], bool], timeout: float = 600) -> bool:
        """Poll until `ready(self)` while the process runs; False if it exited first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.observe()
            if self.process.poll() is not None:
                return False
            if ready(self):
                return True
            time.sleep(POLL_S)
        raise TimeoutError(f"{self.run_dir}: still waiting after {timeout} s")

    def kill(self) -> bool:
        """SIGKILL the run's session; True if the kill ended a running process (not one that already exited)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.observe()
        return self.process.returncode == -signal.SIGKILL

    def finish(self, timeout: float = 900) -> int:
        """Let the process run to its end, watching it; its exit code."""
        self.wait_until(lambda _: False, timeout)
        self.process.wait()
        self.observe()
        return self.process.returncode

    def recorded_all_at(self, total: int) -> float | None:
        """When this process was past its trials: its last of `total` records, or its manifest if none was left."""
        if self.manifest_at is None or self.lines < total:
            return None
        return self.lines_at.get(total, self.manifest_at)

    def phase(self, killed_at: float, total: int) -> Phase:
        """Where a kill at `killed_at` seconds after spawn hit, from what the process had left on disk;
        `total` is the number of records a finished run holds."""
        if self.manifest_at is None:
            return "startup"
        if self.lines >= total or self.finished_at is not None:
            return "report"
        if self.appends and killed_at - self.appends[-1] < APPEND_WINDOW_S:
            return "append"
        return "trials"
