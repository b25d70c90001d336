"""Who holds a claim on a cache key, in words, for the notice of a run that waits for it.

An open file description lock names no process (F_OFD_GETLK and /proc/locks say pid -1), but the kernel lists it in
/proc/<pid>/fdinfo/<fd> of every descriptor open on it: the holder is the process with such a descriptor. Only
processes of this machine that this user may inspect can be found.
"""

from __future__ import annotations

import os
from pathlib import Path

_SHOWN_COMMAND = 120
"""Characters of the holder's command line shown."""


def _holds(fdinfo: str, lock_id: str, offset: int) -> bool:
    """Whether a descriptor's fdinfo lists a write lock of `lock_id` (major:minor:inode) on byte `offset`."""
    for line in fdinfo.splitlines():
        fields = line.split()
        # lock:  1: OFDLCK ADVISORY  WRITE -1 fe:00:2147253 123456789 123456789
        if fields[:1] == ["lock:"] and "OFDLCK" in fields and "WRITE" in fields and lock_id in fields:
            if fields[-2:] == [str(offset), str(offset)]:
                return True
    return False


def holder_pid(lock_file: Path, offset: int) -> int | None:
    """The pid of a process holding byte `offset` of `lock_file`, or None when none can be seen."""
    try:
        status = lock_file.stat()
    except OSError:
        return None
    lock_id = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}:{status.st_ino}"
    target = str(lock_file)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{entry.name}/fd"):
                if os.readlink(f"/proc/{entry.name}/fd/{fd}") != target:
                    continue
                if _holds(Path(f"/proc/{entry.name}/fdinfo/{fd}").read_text(), lock_id, offset):
                    return int(entry.name)
        except OSError:  # gone meanwhile, or not ours to look at
            continue
    return None


def describe_holder(lock_file: Path, offset: int) -> str:
    """The holder of byte `offset` of `lock_file` in words: which process, its command, whether it is stopped."""
    pid = holder_pid(lock_file, offset)
    if pid is None:
        return "a process this user cannot see (another user's, or on another machine sharing the file)"
    if pid == os.getpid():
        return "another thread of this run"
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return f"process {pid}"
    if len(command) > _SHOWN_COMMAND:
        command = command[: _SHOWN_COMMAND - 3] + "..."
    stopped = state in ("T", "t")
    suffix = f", which is stopped (suspended with Ctrl-Z?): `kill -CONT {pid}` resumes it" if stopped else ""
    return f"process {pid} ({command}){suffix}"
