"""Find a run's ALFWorld engine worker processes from outside it."""

from __future__ import annotations

from pathlib import Path


def worker_pids(run_pid: int) -> list[int]:
    """Engine workers of the run `run_pid` still in the process table, orphaned or not (see envs/alfworld_worker.py)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if command[1:3] == [b"-m", b"envs.alfworld_worker"] and command[4:5] == [str(run_pid).encode()]:
            found.append(int(entry.name))
    return sorted(found)
