"""A run's output files written whole: into a new temporary file beside the path, fsynced, renamed over it.

The rename replaces the directory entry, whatever it was (a file, a symlink a user left there, a FIFO), and never
opens it: no write follows a link out of the run directory or waits for a pipe's reader while holding the run lock,
and a reader sees the old file or the new one, never half of either. metrics.json, summary.md, report.md and its
plots, effects.json, the tables and report.html are all written this way.

A writer killed before its rename (kill -9) leaves its hidden temporary file behind. Each writer holds an flock on
its temporary file, which the kernel drops when it dies, so the next write of the same path (and a run as it
starts, over its whole directory) removes the temporaries no live writer holds.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

# O_EXCL makes the open fail on any existing entry, a symlink included, so the temporary file is always new.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
_EXISTING_FILE = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{16}\.tmp")
STALE_AFTER_S = 2.0
"""A temporary file is taken for abandoned only this long after its last write: a writer creates it, then locks it,
and one just created must not be removed before its writer's flock is on it."""


def temporary_of(name: str) -> str | None:
    """The file name whose whole-file temporary `name` is, or None when it is no such temporary."""
    match = _TEMPORARY.fullmatch(name)
    return match.group("name") if match else None


def remove_stale_temporaries(directory: Path, name: str | None = None) -> list[Path]:
    """Remove the temporary files of writers that died before their rename from `directory` (of the file `name`
    only, when given); those a live writer holds stay. Returns what was removed."""
    removed = []
    with os.scandir(directory) as entries:
        for entry in entries:
            target = temporary_of(entry.name)
            if target is not None and (name is None or target == name) and _remove_if_abandoned(Path(entry.path)):
                removed.append(Path(entry.path))
    return removed


def _remove_if_abandoned(temporary: Path) -> bool:
    try:
        descriptor = os.open(temporary, _EXISTING_FILE)  # never follows a link, never waits on a FIFO
    except OSError:
        return False
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or time.time() - info.st_mtime < STALE_AFTER_S:
            return False
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a live writer holds it (or the filesystem cannot tell: then it stays)
            return False
        temporary.unlink(missing_ok=True)
        return True
    finally:
        os.close(descriptor)


def write_whole(path: Path, data: str | bytes) -> Path:
    """`data` (text as UTF-8) as the regular file `path`, replacing whatever `path` was."""
    with replacing(path) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


@contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A new file to write `path`'s content into: renamed over `path` when the block ends, removed if it raises."""
    path = Path(path)
    try:
        remove_stale_temporaries(path.parent, path.name)
    except OSError:  # tidying is no reason to fail the write
        pass
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, _NEW_FILE, 0o666)  # the umask applies, as for any file the run writes
    try:
        _hold(descriptor)
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _rename(temporary, path)
    except BaseException as error:
        temporary.unlink(missing_ok=True)  # the old file stands; no partial copy is left beside it
        if isinstance(error, OSError) and error.filename is None:  # a write's ENOSPC names no file: name the output
            raise type(error)(error.errno, error.strerror, str(path)) from None
        raise
    fsync_directory(path.parent)


def _hold(descriptor: int) -> None:
    """Lock the new temporary file for as long as its writer lives, so no one takes it for abandoned."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # a filesystem without flock: the file then never looks abandoned, and stays if its writer dies
        pass


def _rename(temporary: Path, path: Path) -> None:
    try:
        os.replace(temporary, path)
    except OSError as error:
        # What is in the way (a directory at the path, a read-only folder) is the path's, not the temporary file's.
        raise type(error)(error.errno, error.strerror, str(path)) from None


def fsync_directory(directory: Path) -> None:
    """The rename made durable: it lives in the directory's entries, not in the file."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
