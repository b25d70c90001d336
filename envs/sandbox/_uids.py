"""Dedicated user ids for sandbox runs, and killing every process of one.

Each concurrent run (in this process or another harness) holds its own uid from a pool, locked with
flock. A uid nobody else uses makes RLIMIT_NPROC an exact per-run budget, and lets the harness kill
everything the run started, double-forked setsid daemons included, with one kill(-1) sent as that uid:
the kernel signals all of the uid's processes at once, so a forking process cannot slip between a
listing and a kill. `nobody` would not do: killing all of its processes would hit other runs.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import DEVNULL

from envs.sandbox._errors import SandboxError

UID_BASE = 1_900_000_000
"""First uid of the pool; far above any account or container sub-uid range."""
POOL_SIZE = 64
LOCK_DIR = Path(tempfile.gettempdir()) / "harness-sandbox-uids"
KILL_WAIT_S = 5.0


def _lock_dir() -> Path:
    LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
    info = LOCK_DIR.stat()
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise SandboxError(f"{LOCK_DIR} is not a directory only this user can write; remove it and retry.")
    return LOCK_DIR


def user_processes(uid: int) -> dict[int, dict[str, str]]:
    """The fields of /proc/<pid>/status of each process whose real uid is `uid`."""
    processes = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                status = Path(entry.path, "status").read_bytes()
            except OSError:
                continue  # gone meanwhile
            # The real uid is the first number of the Uid line; only a match is split into its fields (a scan of
            # every process runs several times a sandboxed program, and most processes are someone else's).
            start = status.find(b"\nUid:") + len(b"\nUid:")
            if int(status[start:].split(maxsplit=1)[0]) == uid:
                lines = status.decode(errors="replace").splitlines()
                fields = (line.partition(":") for line in lines)
                processes[int(entry.name)] = {key: value.strip() for key, _, value in fields}
    return processes


def _running(uid: int) -> list[int]:
    """Processes of `uid` that are not zombies.

    Zombies still count against RLIMIT_NPROC, and orphans are reaped by init, which can take a while
    (about 1.5 s in a Firecracker VM); so a uid with zombies is skipped by sandbox_uid, not waited for.
    """
    return [pid for pid, fields in user_processes(uid).items() if not fields["State"].startswith("Z")]


def kill_user_processes(uid: int) -> None:
    """SIGKILL every process of `uid` and wait until none runs; SandboxError if one survives."""
    kill = shutil.which("kill", path="/usr/bin:/bin")
    if kill is None:
        raise SandboxError("no kill program in /usr/bin or /bin; the sandbox needs it to end a run's processes.")
    # Its exit status only says whether anything was left to kill (or that the switch to the uid failed: the wait
    # below then kills what is left one process at a time, or names it).
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin")
    if setpriv is not None:
        # util-linux's setpriv switches to the uid in the child: when subprocess must switch it, Python forks the
        # whole harness instead of vfork-ing, tens of milliseconds a kill in a large process.
        command = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", kill, "-KILL", "-1"]
        subprocess.run(command, env={}, cwd="/", stdin=DEVNULL, stdout=DEVNULL, stderr=DEVNULL, check=False)
    else:
        subprocess.run(
            [kill, "-KILL", "-1"],
            user=uid,
            group=uid,
            extra_groups=[],
            env={},
            cwd="/",
            stdin=DEVNULL,
            stdout=DEVNULL,
            stderr=DEVNULL,
            check=False,
        )
    deadline = time.monotonic() + KILL_WAIT_S
    while running := _running(uid):
        if time.monotonic() > deadline:
            raise SandboxError(f"processes {running} of sandbox uid {uid} outlived SIGKILL for {KILL_WAIT_S:g} s.")
        for pid in running:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)


@contextmanager
def sandbox_uid() -> Iterator[int]:
    """A uid (also used as gid) that no account, no other run and no process uses, until exit."""
    directory = _lock_dir()
    for uid in range(UID_BASE, UID_BASE + POOL_SIZE):
        try:
            pwd.getpwuid(uid)
            continue  # an account took it
        except KeyError:
            pass
        with open(directory / f"{uid}.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            if user_processes(uid):
                kill_user_processes(uid)  # left by an earlier run: killed now, reaped by the next visit
                continue
            try:
                yield uid
            finally:
                kill_user_processes(uid)
            return
    raise SandboxError(f"all {POOL_SIZE} sandbox uids from {UID_BASE} are busy or still being cleaned up.")
