"""A command left without the interpreter's teardown exits as `sys.exit` would: the same status and message, its
exit handlers run, its streams (Python's and C's) flushed, and a thread still writing waited for."""

from __future__ import annotations

import subprocess
import sys

import pytest

from harness.cli.leave import exit_code
from tests.runner import ROOT


def leaving(body: str) -> subprocess.CompletedProcess[str]:
    """A process whose main is `body` (a function body), run through run_and_leave."""
    program = "\n".join(
        [
            "import atexit, ctypes, sys, threading, time",
            "from harness.cli.leave import run_and_leave",
            "atexit.register(lambda: print('exit handler ran', file=sys.stderr))",
            "def main():",
            *(f"    {line}" for line in body.splitlines()),
            "run_and_leave(main)",
        ]
    )
    return subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("code", "status"), [(None, 0), (0, 0), (3, 3), (130, 130), (True, 1), ("error: one sentence", 1)]
)
def test_the_status_is_the_one_sys_exit_gives(code: str | int | None, status: int) -> None:
    assert exit_code(code) == status


@pytest.mark.parametrize(
    ("body", "status", "stderr"),
    [
        ("print('done', end='')", 0, "exit handler ran\n"),
        ("print('done', end='')\nreturn 4", 4, "exit handler ran\n"),
        ("print('done', end='')\nsys.exit('error: bad value')", 1, "error: bad value\nexit handler ran\n"),
        ("print('done', end='')\nsys.exit(143)", 143, "exit handler ran\n"),
    ],
)
def test_status_message_handlers_and_buffered_output_survive(body: str, status: int, stderr: str) -> None:
    result = leaving(body)
    assert (result.returncode, result.stdout, result.stderr) == (status, "done", stderr)


def test_output_buffered_in_c_is_written() -> None:
    result = leaving("ctypes.CDLL(None).printf(b'from C')")
    assert result.returncode == 0 and result.stdout == "from C"


def test_a_thread_still_running_is_waited_for() -> None:
    body = "def late():\n    time.sleep(0.5)\n    print('thread done', end='')\nthreading.Thread(target=late).start()"
    result = leaving(body)
    assert (result.returncode, result.stdout) == (0, "thread done")


def test_an_exception_is_not_swallowed() -> None:
    result = leaving("raise ValueError('boom')")
    assert result.returncode == 1 and "ValueError: boom" in result.stderr
