"""A file written aside and renamed into place, for caches that other processes read while it is written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_aside(path: Path, data: bytes) -> bool:
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
