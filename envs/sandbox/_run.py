"""The parent side of the sandbox: start the runner, watch it, kill everything it left, build the verdict."""

from __future__ import annotations

import atexit
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from pydantic import BaseModel, ValidationError

from envs.sandbox._errors import SandboxError
from envs.sandbox._limits import SandboxLimits
from envs.sandbox._suite import TestSuite
from envs.sandbox._uids import kill_user_processes, sandbox_uid, user_processes
from envs.sandbox._verdict import (
    CapturedOutput,
    Isolation,
    RaisedException,
    TestResult,
    Verdict,
    decide,
    summarize,
)

RUNNER = Path(__file__).resolve().with_name("_runner.py")
# The code sees only these; HOME and TMPDIR point into its working directory.
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
REPORT_CAP = 8 << 20
DRAIN_WAIT_S = 2.0

_running: dict[int, int | None] = {}
"""Runner pid -> its uid, for every sandbox under way; a harness that exits mid-test ends them (_end_running)."""
_running_lock = threading.Lock()


@atexit.register
def _end_running() -> None:
    """Kill what sandboxes are still running as the harness exits (a run stopped by Ctrl-C leaves its trial threads
    behind): the runner dies with its parent anyway, but what the code forked would outlive the run."""
    with _running_lock:
        running = list(_running.items())
    for pid, uid in running:
        _kill_everything(pid, uid)


class _Capped:
    """The first `cap` bytes of a stream, and how many arrived in all."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk[: max(0, self.cap - len(self.data))]

    def captured(self) -> CapturedOutput:
        return CapturedOutput(
            text=self.data.decode("utf-8", "replace"), total_bytes=self.total, truncated=self.total > self.cap
        )


class _Report(BaseModel):
    """What the runner said on its report pipe, lines from anyone else dropped."""

    isolation: Isolation | None = None
    setup_failure: str | None = None
    load_error: RaisedException | None = None
    tests: list[TestResult] = []
    finished: bool = False


def _read_report(data: bytes, nonce: str, pid: int) -> _Report:
    report = _Report()
    for raw in data.splitlines():
        try:
            message = json.loads(raw)
            if not isinstance(message, dict) or message.get("nonce") != nonce or message.get("pid") != pid:
                continue  # written by the code (a fork, or a forgery), not by the runner
            event = message["event"]
            if event == "ready":
                report.isolation = Isolation.model_validate(message["isolation"])
            elif event == "setup_failed":
                report.setup_failure = str(message["detail"])
            elif event == "loaded":
                report.load_error = RaisedException.model_validate(message["error"]) if message["error"] else None
            elif event == "test":
                report.tests.append(TestResult.model_validate(message["result"]))
            elif event == "done":
                report.finished = True
        except (ValueError, KeyError, TypeError, ValidationError):
            continue  # a torn or forged line
    return report


def _processes_allowed(limits: SandboxLimits) -> int:
    """RLIMIT_NPROC counts every task of the real uid; without a uid of its own, add what this user runs already."""
    return sum(int(fields["Threads"]) for fields in user_processes(os.getuid()).values()) + limits.processes


@contextmanager
def _workdir() -> Iterator[str]:
    path = tempfile.mkdtemp(prefix="harness-sandbox-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _payload(
    code: str,
    preamble: str,
    tests: TestSuite,
    limits: SandboxLimits,
    workdir: str,
    uid: int | None,
    report_fd: int,
    nonce: str,
) -> bytes:
    return json.dumps(
        {
            "code": code,
            "preamble": preamble,
            "tests": tests.model_dump(),
            "workdir": workdir,
            "uid": uid,
            "gid": uid,
            "workdir_bytes": limits.workdir_bytes,
            "limits": {
                "cpu_s": limits.effective_cpu_s,
                "memory_bytes": limits.memory_bytes,
                "file_size_bytes": limits.file_size_bytes,
                "processes": limits.processes if uid is not None else _processes_allowed(limits),
            },
            "report_fd": report_fd,
            "nonce": nonce,
            "parent_pid": os.getpid(),
        }
    ).encode()


def run_tests(code: str, tests: TestSuite, limits: SandboxLimits | None = None, preamble: str = "") -> Verdict:
    """Run `code` as module `solution`, then `tests` against it, in a fresh sandboxed process.

    `preamble` (e.g. Reflexion's `from typing import *`) runs in the module first, compiled on its own so the
    code's line numbers stay its own.

    The code's failures, crashes, hangs and exits are verdicts; SandboxError means the sandbox itself
    could not isolate, run or clean up.
    """
    limits = limits or SandboxLimits()
    uids = sandbox_uid() if os.geteuid() == 0 else nullcontext(None)
    with uids as uid, _workdir() as workdir:
        return _run(code, preamble, tests, limits, uid, workdir)


def _run(
    code: str, preamble: str, tests: TestSuite, limits: SandboxLimits, uid: int | None, workdir: str
) -> Verdict:
    """Start the runner, read its pipes until it exits or times out, kill what is left, judge."""
    nonce = secrets.token_hex(16)
    streams = {
        "stdout": _Capped(limits.output_bytes),
        "stderr": _Capped(limits.output_bytes),
        "report": _Capped(REPORT_CAP),
    }
    report_read, report_write = os.pipe()
    with tempfile.TemporaryFile() as payload:  # unnamed; the runner reads it before the code starts
        payload.write(_payload(code, preamble, tests, limits, workdir, uid, report_write, nonce))
        payload.flush()
        payload.seek(0)
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", str(RUNNER), str(payload.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(payload.fileno(), report_write),
                cwd=workdir,
                env={**BASE_ENV, "HOME": workdir, "TMPDIR": workdir},
                start_new_session=True,
            )
        except BaseException:
            os.close(report_read)
            raise
        finally:
            os.close(report_write)
    assert proc.stdout is not None and proc.stderr is not None
    with _running_lock:
        _running[proc.pid] = uid
    exit_fd = os.pidfd_open(proc.pid)
    selector = selectors.DefaultSelector()
    try:
        for name, fd in (("stdout", proc.stdout.fileno()), ("stderr", proc.stderr.fileno()), ("report", report_read)):
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ, name)
        selector.register(exit_fd, selectors.EVENT_READ, "exit")
        try:
            timed_out = _collect(selector, streams, started + limits.timeout_s)
        finally:
            wait_status, cpu_s = _stop(proc, uid)
            with _running_lock:
                del _running[proc.pid]
        duration_s = time.monotonic() - started
        _drain(selector, streams, time.monotonic() + DRAIN_WAIT_S)
    finally:
        selector.close()
        for fd in (exit_fd, report_read):
            os.close(fd)
        proc.stdout.close()
        proc.stderr.close()
    return _verdict(
        _read_report(bytes(streams["report"].data), nonce, proc.pid),
        wait_status=wait_status,
        timed_out=timed_out,
        cpu_s=cpu_s,
        duration_s=duration_s,
        stdout=streams["stdout"].captured(),
        stderr=streams["stderr"].captured(),
        limits=limits,
    )


def _read_chunk(selector: selectors.BaseSelector, key: selectors.SelectorKey, streams: dict[str, _Capped]) -> None:
    chunk = os.read(key.fd, 1 << 16)
    if chunk:
        streams[key.data].add(chunk)
    else:
        selector.unregister(key.fd)


def _collect(selector: selectors.BaseSelector, streams: dict[str, _Capped], deadline: float) -> bool:
    """Read the pipes until the runner exits or the deadline passes; True if the deadline came first.

    The runner's exit shows as its pidfd turning readable, which does not reap it: its process group
    id stays reserved, so the group kill in _stop cannot hit another group that reused the number.
    """
    while (remaining := deadline - time.monotonic()) > 0:
        for key, _ in selector.select(remaining):
            if key.data == "exit":
                selector.unregister(key.fd)
                return False
            _read_chunk(selector, key, streams)
    return True


def _kill_everything(pid: int, uid: int | None) -> None:
    """SIGKILL the runner's session (`pid` leads it) and every process of the sandbox uid."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if uid is not None:
        kill_user_processes(uid)


def _stop(proc: subprocess.Popen[bytes], uid: int | None) -> tuple[int, float]:
    """SIGKILL the runner's session and every process of the sandbox uid; the runner's wait status and CPU seconds."""
    _kill_everything(proc.pid, uid)
    _, wait_status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(wait_status)
    return wait_status, usage.ru_utime + usage.ru_stime


def _drain(selector: selectors.BaseSelector, streams: dict[str, _Capped], deadline: float) -> None:
    """Read what is left. Every writer is dead by now, unless (without a uid of its own) a daemon left the session."""
    while any(key.data != "exit" for key in selector.get_map().values()):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        for key, _ in selector.select(remaining):
            if key.data != "exit":
                _read_chunk(selector, key, streams)


def _verdict(
    report: _Report,
    *,
    wait_status: int,
    timed_out: bool,
    cpu_s: float,
    duration_s: float,
    stdout: CapturedOutput,
    stderr: CapturedOutput,
    limits: SandboxLimits,
) -> Verdict:
    if report.setup_failure is not None:
        raise SandboxError(f"the sandbox runner could not isolate itself: {report.setup_failure.strip()}")
    exit_code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None
    if report.isolation is None and exit_code is not None:
        raise SandboxError(f"the sandbox runner exited with {exit_code} before starting: {stderr.text[-2000:]}")
    signal_name = None
    if os.WIFSIGNALED(wait_status) and not timed_out:
        signal_name = signal.Signals(os.WTERMSIG(wait_status)).name
    status, resource_limit = decide(
        timed_out=timed_out,
        signal=signal_name,
        cpu_exhausted=cpu_s >= limits.effective_cpu_s,
        finished=report.finished,
        load_error=report.load_error,
        tests=report.tests,
    )
    summary = summarize(
        status,
        tests=report.tests,
        load_error=report.load_error,
        resource_limit=resource_limit,
        signal=signal_name,
        exit_code=exit_code,
        timeout_s=limits.timeout_s,
    )
    return Verdict(
        status=status,
        summary=summary,
        tests=report.tests,
        load_error=report.load_error,
        resource_limit=resource_limit,
        signal=signal_name,
        exit_code=exit_code,
        duration_s=round(duration_s, 3),
        cpu_s=round(cpu_s, 3),
        stdout=stdout,
        stderr=stderr,
        isolation=report.isolation,
    )
