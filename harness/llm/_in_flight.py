"""One request in flight per cache key, across the threads of a process and across processes sharing a cache file.

A claim is an exclusive lock on one byte of a lock file beside the cache (`<cache>.lock`), at an offset the key
gives. It is an open file description lock (Linux's F_OFD_SETLKW): owned by the descriptor, not the process, so two
threads of one run exclude each other as two runs do; the kernel drops it when its holder closes the descriptor or
dies, so a killed run leaves no key claimed. Two keys share a byte only if their first 60 bits agree: they then wait
for each other, and nothing worse. A separate file keeps these long-held locks away from the cache's own flock (on
NFS flock is emulated by a lock on the whole file, which a claim on the cache itself would then block).
"""

from __future__ import annotations

import fcntl
import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.llm._cache_disk import unwritable

_KEY_HEX_DIGITS = 15
"""60 bits of a key's SHA-256 hex digest: an offset below 2**63, the largest a file offset may be."""


def lock_path(cache_path: Path) -> Path:
    """The lock file of the cache at `cache_path`."""
    return cache_path.with_name(cache_path.name + ".lock")


def _write_lock(offset: int) -> bytes:
    # struct flock on 64-bit Linux: short l_type, short l_whence, off_t l_start, off_t l_len, pid_t l_pid (0 for an
    # open file description lock), padded to 32 bytes.
    return struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)


@contextmanager
def claim(cache_path: Path, key: str) -> Iterator[None]:
    """Hold `key` of the cache at `cache_path` until the block ends: no other claim of it, in this process or
    another, goes on before then; one waits as long as the holder takes."""
    path = lock_path(cache_path)
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:  # a full disk, a read-only directory: named as the cache's own writes are
        raise unwritable(path, error) from error
    try:
        fcntl.fcntl(descriptor, fcntl.F_OFD_SETLKW, _write_lock(int(key[:_KEY_HEX_DIGITS], 16)))
        yield
    finally:
        os.close(descriptor)  # releases the claim
