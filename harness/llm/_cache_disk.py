"""A failed write of the LLM cache in one sentence naming the file and the disk it is on.

The cache usually sits outside the run directory (results/llm_cache.jsonl, or a path shared by several runs), often
on another filesystem: "No space left on device" alone sends the reader to clean the wrong disk.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from harness.errors import CacheWriteError


def mount_point(path: Path) -> Path:
    """The mount point of the filesystem holding `path` (or, while it does not exist, its nearest existing parent)."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    device = path.stat().st_dev
    while path != path.parent and path.parent.stat().st_dev == device:
        path = path.parent
    return path


def unwritable(path: Path, error: OSError) -> CacheWriteError:
    """`path` of the cache could not be written: where, on which disk, and what to do."""
    mount = mount_point(path)
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        state = f"{shutil.disk_usage(mount).free:,} bytes free"
        advice = f"make room on {mount} (or point llm.cache.path at another disk)"
    else:
        state = "refusing the write"
        advice = f"make {path} writable (or point llm.cache.path elsewhere)"
    return CacheWriteError(
        f"could not write the LLM cache {path} ({error.strerror or error}) on the filesystem mounted at {mount} "
        f"({state}); every trial recorded before it is kept: {advice} and run the same command to resume."
    )
