"""One writer per run directory: an exclusive lock that the kernel drops when its holder dies."""

from __future__ import annotations

import fcntl
import os
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from pydantic import BaseModel, Field

from harness.errors import RunDirBusyError

LOCK_FILE = "run.lock"


class LockHolder(BaseModel):
    """Who holds a run directory, as written into its lock file for the refusal message."""

    pid: int = Field(description="Process id of the writer.")
    host: str = Field(description="Host name of the writer's machine.")
    started_at: datetime = Field(description="When the writer took the lock.")


class RunLock:
    """An exclusive flock on `<run_dir>/run.lock`, held while one process writes the run.

    The lock belongs to the open file, so a process that exits or is killed releases it without any
    clean-up: a crash never leaves the directory locked, and the pid in a stale file only names the
    last holder. The file is removed on release, so a run that ended leaves none behind.
    """

    def __init__(self, path: Path, handle: IO[str]) -> None:
        self.path = path
        self._handle = handle

    @classmethod
    def acquire(cls, run_dir: Path) -> RunLock:
        """Take the run directory, or raise RunDirBusyError naming the process that holds it."""
        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / LOCK_FILE
        while True:
            handle = path.open("a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(handle)
                handle.close()
                raise RunDirBusyError(_busy_sentence(run_dir, holder)) from None
            # A releasing holder unlinks the file it locked: a lock on that orphan would exclude no one.
            if _is_current(handle, path):
                break
            handle.close()
        holder = LockHolder(pid=os.getpid(), host=socket.gethostname(), started_at=datetime.now(timezone.utc))
        handle.seek(0)
        handle.truncate()
        handle.write(holder.model_dump_json() + "\n")
        handle.flush()
        return cls(path, handle)

    def release(self) -> None:
        """Remove the lock file and let go; safe to call twice."""
        if self._handle.closed:
            return
        # Unlinked while still held: whoever opened it meanwhile sees, once it gets the lock, that it is stale.
        self.path.unlink(missing_ok=True)
        fcntl.flock(self._handle, fcntl.LOCK_UN)
        self._handle.close()


def _is_current(handle: IO[str], path: Path) -> bool:
    try:
        on_disk = path.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(handle.fileno())
    return (opened.st_dev, opened.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _read_holder(handle: IO[str]) -> LockHolder | None:
    handle.seek(0)
    try:
        return LockHolder.model_validate_json(handle.read())
    except ValueError:  # pydantic's ValidationError included
        return None  # the holder took the lock a moment ago and has not written its name yet


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
