"""Values pickled in a folder for other processes: read back, or made and written aside and renamed into place."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

T = TypeVar("T")


def _write_aside(path: Path, data: bytes) -> bool:
    """Write `data` to `path` through a temporary file in its folder (created if missing), so a reader in another
    process sees the whole file or none; False when the disk refuses (read-only or full): a cache only loses a copy."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
        return True
    except OSError:
        return False


def pickled(path: Path, make: Callable[[], T]) -> tuple[T, Literal["read", "written", "made"]]:
    """The value pickled at `path`, or `make()`'s, then pickled there; and which: read, written, or made only (the
    disk refused it, which costs the next process a `make`). The files are pickles written by this code: keep
    their folder where only you write."""
    try:
        return pickle.loads(path.read_bytes()), "read"
    except Exception:  # none yet, or a torn or foreign file: made, and written (again)
        pass
    value = make()
    return value, "written" if _write_aside(path, pickle.dumps(value)) else "made"


class CountedPickles:
    """Values pickled in `directory`, each file named by the SHA-256 of its key's repr; how many were read back and
    how many written."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.reads = 0
        self.writes = 0

    def path(self, *key: Any) -> Path:
        """Where the value of `key` is kept."""
        return self.directory / f"{hashlib.sha256(repr(key).encode()).hexdigest()}.pickle"

    def get(self, make: Callable[[], T], *key: Any) -> T:
        """The value kept for `key`, or `make()`'s, kept for the next process (see `pickled`)."""
        value, how = pickled(self.path(*key), make)
        self.reads += how == "read"
        self.writes += how == "written"
        return value
