"""One request in flight per cache key, across the threads of a process and across processes sharing a cache file.

A claim is an exclusive lock on one byte of a lock file beside the cache (`<cache>.lock`, beside the file a symbolic
link to the cache names, so every name of the cache shares one lock file; never itself a link), at an offset the key
gives. It is an open file description lock (Linux's F_OFD_SETLK): owned by the descriptor, not the process, so two
threads of one run exclude each other as two runs do; the kernel drops it when its holder closes the descriptor or
dies, so a killed run leaves no key claimed. Two keys share a byte only if their first 60 bits agree: they then wait
for each other, and nothing worse. A separate file keeps these long-held locks away from the cache's own flock (on
NFS flock is emulated by a lock on the whole file, which a claim on the cache itself would then block).

A claim that waits says so in the log after NOTICE_AFTER_S, then every NOTICE_EVERY_S: the key, the holder and how
long it has waited (a holder suspended with Ctrl-Z holds its keys until it resumes or ends).
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import struct
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.errors import CacheWriteError
from harness.llm._cache_disk import unwritable
from harness.llm._lock_holder import describe_holder

log = logging.getLogger(__name__)

_KEY_HEX_DIGITS = 15
"""60 bits of a key's SHA-256 hex digest: an offset below 2**63, the largest a file offset may be."""
NOTICE_AFTER_S = 10.0
"""A claim waited on this long is said in the log, naming the key and its holder."""
NOTICE_EVERY_S = 60.0
"""Then said again this often, with how long it has waited."""
_POLL_S = (0.005, 0.2)
"""The first and the longest pause between two tries of a claim held by another."""


def lock_path(cache_path: Path) -> Path:
    """The lock file of the cache at `cache_path`: beside the file itself, whichever link names it."""
    real = Path(os.path.realpath(cache_path))
    return real.with_name(real.name + ".lock")


def linked_lock(cache_path: Path) -> str | None:
    """Why the lock file of `cache_path` cannot be used (a symbolic link, or no regular file), or None."""
    path = lock_path(cache_path)
    if path.is_symlink():
        return f"{path} is a symbolic link (to {os.readlink(path)}); the cache's lock file is never one"
    if path.exists() and not path.is_file():
        return f"{path} is not a regular file"
    return None


def _write_lock(offset: int) -> bytes:
    # struct flock on 64-bit Linux: short l_type, short l_whence, off_t l_start, off_t l_len, pid_t l_pid (0 for an
    # open file description lock), padded to 32 bytes.
    return struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)


def _open(path: Path) -> int:
    """The lock file, opened for locking; created if missing, never through a symbolic link."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise CacheWriteError(
                f"the LLM cache's lock file {path} is a symbolic link (to {os.readlink(path)}), which the harness "
                "never follows: it would create or lock a file elsewhere; remove the link and run the same command "
                "to resume."
            ) from None
        raise unwritable(path, error) from error  # a full disk, a read-only directory: named as the cache's writes


def _wait_for(descriptor: int, path: Path, key: str) -> None:
    """Take the claim on `key`, trying again while another holds it and saying so when that lasts."""
    offset = int(key[:_KEY_HEX_DIGITS], 16)
    lock = _write_lock(offset)
    started = time.monotonic()
    notice_at, pause = started + NOTICE_AFTER_S, _POLL_S[0]
    while True:
        try:
            fcntl.fcntl(descriptor, fcntl.F_OFD_SETLK, lock)
            return
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                raise
        now = time.monotonic()
        if now >= notice_at:
            log.warning(
                "waiting %.0f s for the cache key %s, which %s is asking the model (claimed in %s); the answer it "
                "stores will be taken from the cache",
                now - started, key[:16], describe_holder(path, offset), path,
            )  # fmt: skip
            notice_at = now + NOTICE_EVERY_S
        time.sleep(pause)
        pause = min(pause * 2, _POLL_S[1])


@contextmanager
def claim(cache_path: Path, key: str) -> Iterator[None]:
    """Hold `key` of the cache at `cache_path` until the block ends: no other claim of it, in this process or
    another, goes on before then; one waits as long as the holder takes, and says so in the log."""
    path = lock_path(cache_path)
    descriptor = _open(path)
    try:
        _wait_for(descriptor, path, key)
        yield
    finally:
        os.close(descriptor)  # releases the claim
