"""One writer per run directory: a second process refuses with the holder's pid; a killed holder frees it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from harness.errors import RunDirBusyError
from harness.records import read_trials
from harness.run.lock import LOCK_FILE, LockHolder, RunLock
from tests.runner import ROOT, run_cli
from tests.small_run import SMALL_RUN, small_run_command, snapshot


def test_a_second_acquirer_is_refused_until_the_first_releases(tmp_path: Path) -> None:
    lock = RunLock.acquire(tmp_path)
    # flock is per open file: even the same process, opening the file again, is refused.
    with pytest.raises(RunDirBusyError, match=f"{tmp_path} is in use by process {os.getpid()} on "):
        RunLock.acquire(tmp_path)
    lock.release()
    assert not (tmp_path / LOCK_FILE).exists()
    RunLock.acquire(tmp_path).release()


def test_a_lock_file_left_by_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    stale = '{"pid": 999999, "host": "gone", "started_at": "2020-01-01T00:00:00Z"}\n'
    (tmp_path / LOCK_FILE).write_text(stale)
    lock = RunLock.acquire(tmp_path)
    assert LockHolder.model_validate_json((tmp_path / LOCK_FILE).read_text()).pid == os.getpid()
    lock.release()


def wait_for_holder(run_dir: Path, pid: int, process: subprocess.Popen[bytes]) -> None:
    """Until `pid` has written itself into the run's lock file."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if LockHolder.model_validate_json((run_dir / LOCK_FILE).read_text()).pid == pid:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never took {run_dir} (exit code {process.poll()})")


@pytest.mark.slow
def test_a_second_run_refuses_while_the_first_writes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    first = subprocess.Popen(small_run_command(run_dir), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_holder(run_dir, first.pid, first)
        os.kill(first.pid, signal.SIGSTOP)  # frozen while holding the lock, so the refusal cannot race its end
        before = snapshot(run_dir)
        second = run_cli(*SMALL_RUN, f"hydra.run.dir={run_dir}", timeout=300)
        assert snapshot(run_dir) == before, "the refused process wrote into the run directory"
    finally:
        os.kill(first.pid, signal.SIGCONT)
    assert second.returncode == 2
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1, second.stderr
    assert lines[0].startswith(f"error: run directory {run_dir} is in use by process {first.pid} on ")
    _, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stderr
    assert len(read_trials(run_dir)) == 2
    assert not (run_dir / LOCK_FILE).exists()


@pytest.mark.slow
def test_a_killed_writer_leaves_the_run_directory_free(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    first = subprocess.Popen(small_run_command(run_dir), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_holder(run_dir, first.pid, first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    # The dead holder's name stays in the file, but the kernel dropped its lock with the process.
    assert LockHolder.model_validate_json((run_dir / LOCK_FILE).read_text()).pid == first.pid
    resumed = run_cli(*SMALL_RUN, f"hydra.run.dir={run_dir}", timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert len(read_trials(run_dir)) == 2
    assert not (run_dir / LOCK_FILE).exists()
