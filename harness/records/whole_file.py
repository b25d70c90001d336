"""A run's output files written whole: into a new temporary file beside the path, fsynced, renamed over it.

The rename replaces the directory entry, whatever it was (a file, a symlink a user left there, a FIFO), and never
opens it: no write follows a link out of the run directory or waits for a pipe's reader while holding the run lock,
and a reader sees the old file or the new one, never half of either. metrics.json, summary.md, report.md and its
plots, effects.json, the tables and report.html are all written this way.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

# O_EXCL makes the open fail on any existing entry, a symlink included, so the temporary file is always new.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


def write_whole(path: Path, data: str | bytes) -> Path:
    """`data` (text as UTF-8) as the regular file `path`, replacing whatever `path` was."""
    with replacing(path) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


@contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A new file to write `path`'s content into: renamed over `path` when the block ends, removed if it raises."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, _NEW_FILE, 0o666)  # the umask applies, as for any file the run writes
    try:
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _rename(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)  # the old file stands; no partial copy is left beside it
        raise
    fsync_directory(path.parent)


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
