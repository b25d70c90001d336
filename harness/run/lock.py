"""One writer per run directory: exclusive locks that the kernel drops when their holder dies.

The run holds an flock on the run directory itself and one on `run.lock` inside it, which names the holder for the
refusal message. The directory lock is what a user cannot delete: removing or replacing run.lock lets no second
writer in. Filesystems that refuse an exclusive flock on a directory (NFS emulates flock with locks that need a
file open for writing) keep run.lock's alone; there `ensure_held`, called before every write, stops the run when
another process has taken run.lock at its path.
"""

from __future__ import annotations

import errno
import fcntl
import io
import logging
import os
import socket
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from pydantic import BaseModel, Field

from harness.errors import RunDirBusyError, RunDirLostError, RunLockUnusableError

log = logging.getLogger(__name__)

LOCK_FILE = "run.lock"
_NO_DIRECTORY_LOCKS = {errno.EBADF, errno.EINVAL, errno.ENOLCK, errno.EOPNOTSUPP}


class LockHolder(BaseModel):
    """Who holds a run directory, as written into its lock file for the refusal message."""

    pid: int = Field(description="Process id of the writer.")
    host: str = Field(description="Host name of the writer's machine.")
    started_at: datetime = Field(description="When the writer took the lock.")


class RunLock:
    """The run directory's locks, held while one process writes the run.

    The locks belong to open files, so a process that exits or is killed releases them without any clean-up: a
    crash never leaves the directory locked, and the pid in a stale run.lock only names the last holder. The file
    is removed on release (when it is still this process's), so a run that ended leaves none behind.
    """

    def __init__(self, run_dir: Path, directory: int, handle: IO[str]) -> None:
        self.run_dir = run_dir
        self.path = run_dir / LOCK_FILE
        self._directory = directory
        self._handle = handle
        self._holder = LockHolder(pid=os.getpid(), host=socket.gethostname(), started_at=datetime.now(timezone.utc))
        _name_holder(handle, self._holder)

    @classmethod
    def acquire(cls, run_dir: Path) -> RunLock:
        """Take the run directory, or raise RunDirBusyError naming the process that holds it."""
        run_dir.mkdir(parents=True, exist_ok=True)
        directory = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY)
        try:
            _lock_directory(directory, run_dir)
            handle = _take_lock_file(run_dir / LOCK_FILE)
        except BaseException:
            os.close(directory)  # and with it the directory lock
            raise
        if handle is None:
            holder = _holder_at(run_dir / LOCK_FILE)
            os.close(directory)
            raise RunDirBusyError(_busy_sentence(run_dir, holder))
        return cls(run_dir, directory, handle)

    def ensure_held(self) -> None:
        """Check, before a write, that this process still holds the run directory; RunDirLostError if not.

        A run.lock deleted or replaced by a copy no one holds is taken again (with a warning), so the next refusal
        still names this process. The directory moved or replaced, or run.lock at its path held by another
        process, and this process must write nothing more there.
        """
        try:
            now = os.stat(self.run_dir)
        except OSError:
            now = None
        locked = os.fstat(self._directory)
        if now is None or (now.st_dev, now.st_ino) != (locked.st_dev, locked.st_ino):
            raise RunDirLostError(
                f"run directory {self.run_dir} was moved, removed or replaced while this process wrote it, so it "
                "writes nothing more there; what it recorded is in the directory it locked, wherever that is now."
            )
        if _is_current(self._handle, self.path):
            _name_holder(self._handle, self._holder)  # a copy restored over it in place names someone else
            return
        handle = _take_lock_file(self.path)
        if handle is None:
            holder = _holder_at(self.path)
            who = f"process {holder.pid} on {holder.host}" if holder else "another process"
            raise RunDirLostError(
                f"{self.path} was removed or replaced while this process wrote {self.run_dir}, and {who} holds it "
                "now; this process writes nothing more there, and every trial it recorded is kept."
            )
        self._handle.close()
        self._handle = handle
        _name_holder(handle, self._holder)
        log.warning("%s was removed or replaced while this run wrote the directory; it holds a new one", self.path)

    def release(self) -> None:
        """Remove this process's lock file and let go; safe to call twice."""
        if self._handle.closed:
            return
        # Unlinked while still held: whoever opened it meanwhile sees, once it gets the lock, that it is stale.
        # Never another process's lock file, if someone replaced this one.
        if _is_current(self._handle, self.path):
            self.path.unlink(missing_ok=True)
        fcntl.flock(self._handle, fcntl.LOCK_UN)
        self._handle.close()
        os.close(self._directory)


def _lock_directory(directory: int, run_dir: Path) -> None:
    """flock the run directory itself; RunDirBusyError if another process holds it."""
    try:
        fcntl.flock(directory, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RunDirBusyError(_busy_sentence(run_dir, _holder_at(run_dir / LOCK_FILE))) from None
    except OSError as error:
        if error.errno not in _NO_DIRECTORY_LOCKS:
            raise
        log.debug("%s: no flock on directories on this filesystem (%s); run.lock alone guards it", run_dir, error)


def _take_lock_file(path: Path) -> IO[str] | None:
    """run.lock opened and locked; None if another process holds it."""
    while True:
        try:
            handle = path.open("a+")
        except (IsADirectoryError, io.UnsupportedOperation):  # a pipe cannot seek to its end for "a+"
            raise _unusable(path) from None
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            handle.close()  # /dev/zero would be read without end when the holder is named, a pipe would block
            raise _unusable(path)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        # A releasing holder unlinks the file it locked: a lock on that orphan would exclude no one.
        if _is_current(handle, path):
            return handle
        handle.close()


def _unusable(path: Path) -> RunLockUnusableError:
    return RunLockUnusableError(
        f"{path} is not a regular file (a directory, device or pipe is in its place), so the run cannot lock its "
        "directory; remove it and run the same command again, nothing was written."
    )


def _name_holder(handle: IO[str], holder: LockHolder) -> None:
    """Write `holder` into the locked run.lock, unless it already says so."""
    text = holder.model_dump_json() + "\n"
    handle.seek(0)
    if handle.read() == text:
        return
    handle.seek(0)
    handle.truncate()
    handle.write(text)
    handle.flush()


def _is_current(handle: IO[str], path: Path) -> bool:
    try:
        on_disk = path.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(handle.fileno())
    return (opened.st_dev, opened.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _holder_at(path: Path) -> LockHolder | None:
    try:
        return LockHolder.model_validate_json(path.read_text())
    except (OSError, ValueError):  # pydantic's ValidationError included
        return None  # gone, or the holder took the lock a moment ago and has not written its name yet


def _busy_sentence(run_dir: Path, holder: LockHolder | None) -> str:
    who = (
        f"process {holder.pid} on {holder.host} (since {holder.started_at:%Y-%m-%d %H:%M:%S} UTC)"
        if holder
        else "another process"
    )
    return (
        f"run directory {run_dir} is in use by {who}; only one process may write a run directory at a time, "
        "so wait for it to end or choose another hydra.run.dir."
    )
