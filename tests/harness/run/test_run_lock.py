"""One writer per run directory: a second process refuses with the holder's pid; a killed holder frees it."""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

from harness.errors import RecordCorruptError, RunDirBusyError, RunDirLostError, RunLockUnusableError
from harness.records import TrialLog, read_trials
from harness.run.lock import LOCK_FILE, LockHolder, RunLock
from tests.harness.factories import make_record
from tests.runner import ROOT, quiet, run_cli
from tests.small_run import SMALL_RUN, small_run_command, snapshot

FIVE_CONDITIONS = (
    "experiment=five_conditions_demo",
    "llm.cache.mode=replay",
    f"llm.cache.path={ROOT / 'tests' / 'fixtures' / 'five_conditions' / 'llm_cache.jsonl'}",
)
TWO_GAMES = ("pick_and_place_simple-SoapBottle-None-Toilet-424", "pick_and_place_simple-Vase-None-Safe-219")


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
        second = run_cli(*SMALL_RUN, f"hydra.run.dir={run_dir}")
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
    resumed = run_cli(*SMALL_RUN, f"hydra.run.dir={run_dir}")
    assert resumed.returncode == 0, resumed.stderr
    assert len(read_trials(run_dir)) == 2
    assert not (run_dir / LOCK_FILE).exists()


def test_deleting_run_lock_lets_no_second_acquirer_in(tmp_path: Path) -> None:
    """'Deleting run.lock lets a second writer in': the directory itself stays locked, whatever becomes of the file."""
    lock = RunLock.acquire(tmp_path)
    (tmp_path / LOCK_FILE).unlink()
    with pytest.raises(RunDirBusyError, match=f"{tmp_path} is in use by another process; "):
        RunLock.acquire(tmp_path)
    restore_a_stale_copy(tmp_path / LOCK_FILE)
    with pytest.raises(RunDirBusyError):
        RunLock.acquire(tmp_path)
    lock.release()
    RunLock.acquire(tmp_path).release()


STALE = '{"pid": 999999, "host": "gone", "started_at": "2020-01-01T00:00:00Z"}\n'


def restore_a_stale_copy(path: Path) -> None:
    """`mv backup/run.lock run.lock`: another file, held by no one."""
    copy = path.with_name("run.lock.bak")
    copy.write_text(STALE)
    copy.replace(path)


def copy_over_it(path: Path) -> None:
    """`cp backup/run.lock run.lock`: the same file, rewritten to name someone else."""
    path.write_text(STALE)


def test_a_deleted_or_restored_run_lock_is_taken_again_before_the_next_write(tmp_path: Path) -> None:
    lock = RunLock.acquire(tmp_path)
    path = tmp_path / LOCK_FILE
    for change in (Path.unlink, restore_a_stale_copy, copy_over_it):
        change(path)
        lock.ensure_held()
        assert LockHolder.model_validate_json((tmp_path / LOCK_FILE).read_text()).pid == os.getpid()
    lock.release()
    assert not (tmp_path / LOCK_FILE).exists()


def held_by_someone_else(path: Path) -> IO[str]:
    """run.lock at `path` replaced by one that another holder has locked (flock excludes across descriptors)."""
    path.unlink(missing_ok=True)
    handle = path.open("a+")
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    handle.write('{"pid": 4242, "host": "elsewhere", "started_at": "2026-01-01T00:00:00Z"}\n')
    handle.flush()
    return handle


def test_a_run_lock_another_process_holds_stops_this_writer_and_is_never_removed_by_it(tmp_path: Path) -> None:
    lock = RunLock.acquire(tmp_path)
    other = held_by_someone_else(tmp_path / LOCK_FILE)
    with pytest.raises(RunDirLostError, match=f"{tmp_path / LOCK_FILE} was removed or replaced .* process 4242 on "):
        lock.ensure_held()
    lock.release()
    assert "4242" in (tmp_path / LOCK_FILE).read_text(), "released another holder's lock file"
    other.close()


def test_a_moved_or_replaced_run_directory_stops_its_writer(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    lock = RunLock.acquire(run_dir)
    run_dir.rename(tmp_path / "moved")
    run_dir.mkdir()
    with pytest.raises(RunDirLostError, match=f"run directory {run_dir} was moved, removed or replaced"):
        lock.ensure_held()
    lock.release()


@pytest.fixture
def no_directory_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A filesystem that refuses an exclusive flock on a directory, as NFS does (its flock emulation needs a file
    open for writing): standing in for a mount this machine does not have. Files lock as ever."""
    real_flock = fcntl.flock

    def flock(descriptor: Any, operation: int) -> None:
        number = descriptor if isinstance(descriptor, int) else descriptor.fileno()
        if stat.S_ISDIR(os.fstat(number).st_mode) and operation & fcntl.LOCK_EX:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        real_flock(descriptor, operation)

    monkeypatch.setattr(fcntl, "flock", flock)


def test_without_directory_locks_a_deleted_run_lock_still_records_no_trial_twice(
    tmp_path: Path, no_directory_locks: None
) -> None:
    first = RunLock.acquire(tmp_path)
    first_log = TrialLog(tmp_path, guard=first.ensure_held)
    first_log.append(make_record(0, "look"))
    (tmp_path / LOCK_FILE).unlink()
    second = RunLock.acquire(tmp_path)  # only run.lock guarded the directory, and it was gone
    second_log = TrialLog(tmp_path, guard=second.ensure_held)
    with pytest.raises(RunDirLostError, match="holds it now; this process writes nothing more there"):
        first_log.append(make_record(1, "look"))
    second_log.append(make_record(1, "look"))
    # Had the first written meanwhile (before its check, say), the second would not build on it.
    TrialLog(tmp_path).append(make_record(2, "look"))
    with pytest.raises(RecordCorruptError, match="changed since this process last read or wrote it"):
        second_log.append(make_record(2, "look"))
    assert [record.trial for record in read_trials(tmp_path)] == [0, 1, 2]
    first.release()
    second.release()
    assert not (tmp_path / LOCK_FILE).exists()


@pytest.mark.slow
def test_deleting_run_lock_mid_run_lets_no_second_writer_in(tmp_path: Path) -> None:
    """'Deleting run.lock lets a second writer in': part of the five-condition replay (two conditions on two games,
    12 trials), run.lock removed once records appear, the same command started again. The second is refused and
    writes nothing; the first finishes with every trial recorded once."""
    run_dir = tmp_path / "run"
    part = (*FIVE_CONDITIONS, "strategy=[self_diagnosis,grounded_template]", f"env.games=[{','.join(TWO_GAMES)}]")
    command = [sys.executable, str(ROOT / "run.py"), *quiet(*part, f"hydra.run.dir={run_dir}")]
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while not read_trials(run_dir) and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        (run_dir / LOCK_FILE).unlink()
        os.kill(first.pid, signal.SIGSTOP)  # frozen mid-run, so the second cannot simply come after its end
        before = snapshot(run_dir)
        second = run_cli(*part, f"hydra.run.dir={run_dir}")
        assert snapshot(run_dir) == before, "the refused process wrote into the run directory"
    finally:
        os.kill(first.pid, signal.SIGCONT)
    assert second.returncode == 2, second.stderr
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: run directory {run_dir} is in use by "), second.stderr
    _, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stderr
    keys = [record.key for record in read_trials(run_dir)]
    assert len(keys) == len(set(keys)) == 12
    assert not (run_dir / LOCK_FILE).exists()


@pytest.mark.parametrize("replacement", ["a directory", "/dev/zero", "a pipe"])
def test_a_run_lock_that_is_no_regular_file_is_refused_in_one_sentence(tmp_path: Path, replacement: str) -> None:
    """h5 hostile try: "with a directory in place of run.lock, the same command prints a traceback ending in
    IsADirectoryError and exits 1" (and /dev/zero there would be read without end when the holder is named)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    lock = run_dir / LOCK_FILE
    if replacement == "a directory":
        lock.mkdir()
    elif replacement == "a pipe":
        os.mkfifo(lock)
    else:
        lock.symlink_to(replacement)
    with pytest.raises(RunLockUnusableError) as refused:
        RunLock.acquire(run_dir)
    assert str(refused.value) == (
        f"{lock} is not a regular file (a directory, device or pipe is in its place), so the run cannot lock its "
        "directory; remove it and run the same command again, nothing was written."
    )
    assert sorted(p.name for p in run_dir.iterdir()) == [LOCK_FILE]
