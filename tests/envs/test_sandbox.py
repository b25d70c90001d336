"""The sandbox: HumanEval's canonical solutions pass, wrong code gets a precise verdict, hostile code is contained.

Every hostile run ends with a check that no process of the sandbox uids still runs; the test process
itself surviving to the next test is the check that the harness keeps running.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from envs.humaneval import HumanEvalProblem, load_problems
from envs.sandbox import AssertTests, CheckScript, SandboxLimits, Verdict, run_tests
from envs.sandbox._uids import POOL_SIZE, UID_BASE
from tests.runner import ROOT

AS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not AS_ROOT, reason="containing setsid daemons and fork bombs needs the uid drop")

ADD = "def add(a, b):\n    return a + b\n"


def run(code: str, *asserts: str, **limits: float) -> Verdict:
    return run_tests(code, AssertTests(asserts=list(asserts) or ["assert True"]), SandboxLimits(**limits))


def running_sandbox_processes() -> list[int]:
    """Pids of live (not zombie) processes of any sandbox uid."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                status = Path(entry.path, "status").read_text()
            except OSError:
                continue
            fields = {key: value.strip() for key, _, value in (line.partition(":") for line in status.splitlines())}
            uid = int(fields["Uid"].split()[0])
            if UID_BASE <= uid < UID_BASE + POOL_SIZE and not fields["State"].startswith("Z"):
                pids.append(int(entry.name))
    return pids


@pytest.fixture
def contained() -> Iterator[None]:
    yield
    assert running_sandbox_processes() == []


# ---------------------------------------------------------------- verdicts for honest code


def test_canonical_solutions_of_all_164_problems_pass() -> None:
    problems = load_problems()

    def check(problem: HumanEvalProblem) -> tuple[str, Verdict]:
        code = problem.prompt + problem.canonical_solution
        return problem.task_id, run_tests(code, CheckScript(script=problem.test, entry_point=problem.entry_point))

    with ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = dict(pool.map(check, problems))
    failing = {task_id: v.summary for task_id, v in verdicts.items() if not v.passed}
    assert failing == {}
    assert len(verdicts) == 164


def test_wrong_solution_names_the_failing_assert_its_line_and_the_actual_value() -> None:
    problem = load_problems()[0]  # has_close_elements
    verdict = run_tests(
        problem.prompt + "    return False\n", CheckScript(script=problem.test, entry_point=problem.entry_point)
    )
    assert verdict.status == "failed"
    (result,) = verdict.tests
    assert result.source == "assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True"
    assert result.line == 10
    assert problem.test.splitlines()[result.line - 1].strip() == result.source
    assert (result.actual, result.expected) == ("False", "True")
    assert "line 10" in verdict.summary and "got False" in verdict.summary


def test_each_assert_runs_alone_and_reports_the_left_hand_value() -> None:
    verdict = run(
        ADD,
        "assert add(1, 2) == 3",
        "assert add(2, 2) == 5",
        "assert add('a', 'b') == 'ab'",
        "assert not add(1, -1) == 0",
        "assert add(1, 1) > 3, 'too small'",
    )
    assert verdict.status == "failed"
    assert [t.outcome for t in verdict.tests] == ["passed", "failed", "passed", "failed", "failed"]
    assert (verdict.tests[1].actual, verdict.tests[1].expected) == ("4", "5")
    assert verdict.tests[3].actual == "True"  # the operand of `not`
    assert (verdict.tests[4].actual, verdict.tests[4].expected) == ("2", "3")
    assert verdict.summary.startswith("3 of 5 test(s) failed; first: assert add(2, 2) == 5: got 4, expected 5")


def test_long_actual_values_are_truncated() -> None:
    verdict = run("def big():\n    return 'x' * 100_000\n", "assert big() == ''")
    actual = verdict.tests[0].actual
    assert actual is not None and 100 < len(actual) <= 500


def test_an_exception_names_its_type_message_and_implementation_line() -> None:
    code = "def div(a, b):\n    q = a / b\n    return q\n"
    verdict = run(code, "assert div(4, 2) == 2", "assert div(1, 0) == 0", "assert div(1, 1) == 1")
    assert verdict.status == "error"
    assert [t.outcome for t in verdict.tests] == ["passed", "error", "passed"]
    error = verdict.tests[1].error
    assert error is not None
    assert (error.type, error.message) == ("ZeroDivisionError", "division by zero")
    assert error.implementation_line is not None
    assert (error.implementation_line.line, error.implementation_line.text) == (2, "q = a / b")
    assert "assert div(1, 0) == 0" in verdict.summary and "line 2 of the implementation" in verdict.summary


def test_exception_in_a_check_script_names_both_lines() -> None:
    problem = load_problems()[2]  # truncate_number
    verdict = run_tests(
        problem.prompt + "    return 1 / 0\n", CheckScript(script=problem.test, entry_point="truncate_number")
    )
    assert verdict.status == "error"
    error = verdict.tests[0].error
    assert error is not None and error.implementation_line is not None and error.test_line is not None
    assert error.implementation_line.text == "return 1 / 0"
    assert error.test_line.text == "assert candidate(3.5) == 0.5"


def test_syntax_error_and_missing_entry_point() -> None:
    syntax = run("def f(:\n    pass\n")
    assert syntax.status == "error" and syntax.load_error is not None
    assert syntax.load_error.type == "SyntaxError" and syntax.load_error.implementation_line is not None
    assert syntax.load_error.implementation_line.line == 1
    missing = run_tests(
        ADD, CheckScript(script="def check(candidate):\n    assert candidate(1, 2) == 3\n", entry_point="plus")
    )
    assert missing.status == "error" and "'plus'" in missing.summary


def test_output_is_captured_and_capped() -> None:
    verdict = run("print('hello')\nimport sys\nsys.stderr.write('e' * 100_000)\n", output_bytes=1000)
    assert verdict.passed
    assert verdict.stdout.text == "hello\n" and not verdict.stdout.truncated
    assert verdict.stderr.truncated and verdict.stderr.total_bytes == 100_000 and len(verdict.stderr.text) == 1000


# ---------------------------------------------------------------- hostile code


def test_isolation_in_effect() -> None:
    verdict = run("import os\nprint(os.getuid(), sorted(os.environ))\n")
    assert verdict.isolation is not None
    if AS_ROOT:
        assert verdict.isolation.privileges_dropped and verdict.isolation.uid >= UID_BASE
    assert verdict.stdout.text.split(" ", 1)[1].strip() == str(
        sorted(["HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "TMPDIR"])
    )


def test_infinite_loop_times_out(contained: None) -> None:
    verdict = run("while True:\n    pass\n", timeout_s=2)
    assert verdict.status == "timeout" and 2 <= verdict.duration_s < 5


def test_sigterm_ignored_still_killed(contained: None) -> None:
    code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.01)\n"
    assert run(code, timeout_s=2).status == "timeout"


def test_deep_recursion(contained: None) -> None:
    python = run("def f(n):\n    return f(n + 1)\n", "assert f(0) == 0")
    assert python.status == "error" and python.tests[0].error is not None
    assert python.tests[0].error.type == "RecursionError"
    # repr of a nested list recurses in C; past the raised recursion limit the C stack overflows.
    native = run("import sys\nsys.setrecursionlimit(10**8)\nx = []\nfor _ in range(300_000):\n    x = [x]\nrepr(x)\n")
    assert native.status == "killed_by_signal" and native.signal == "SIGSEGV"


def test_memory_bomb(contained: None) -> None:
    at_once = run("x = bytearray(1 << 40)\n", memory_bytes=256 << 20)
    gradual = run("chunks = []\nwhile True:\n    chunks.append(bytearray(1 << 24))\n", memory_bytes=256 << 20)
    for verdict in (at_once, gradual):
        assert (verdict.status, verdict.resource_limit) == ("resource_limit", "memory")
        assert verdict.load_error is not None and verdict.load_error.type == "MemoryError"


@needs_root
def test_fork_bomb(contained: None) -> None:
    # First a bounded probe, so the bomb below never runs without its limit in place.
    probe = (
        "import os, time\nforked = 0\nfor _ in range(40):\n    try:\n        pid = os.fork()\n"
        "    except BlockingIOError:\n        continue\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n"
        "    forked += 1\nprint(forked)\n"
    )
    limited = run(probe, processes=8)
    assert limited.passed and limited.stdout.text == "7\n"  # the runner is the 8th
    assert running_sandbox_processes() == []
    bomb = run("import os\nwhile True:\n    os.fork()\n", processes=16, timeout_s=5)
    assert (bomb.status, bomb.resource_limit) == ("resource_limit", "processes")


def test_huge_file(contained: None) -> None:
    code = "with open('big', 'wb') as f:\n    while True:\n        f.write(b'x' * (1 << 20))\n"
    verdict = run(code, file_size_bytes=4 << 20)
    assert (verdict.status, verdict.resource_limit) == ("resource_limit", "file_size")


@pytest.mark.parametrize(
    "attack",
    [
        "os.remove(CANARY)",
        "shutil.rmtree(os.path.dirname(CANARY))",
        "open(CANARY, 'w').write('overwritten')",
        "os.rename(CANARY, CANARY + '.moved')",
        "subprocess.run(['rm', '-rf', os.path.dirname(CANARY)], check=True)",  # a subprocess has no audit hook
    ],
)
def test_files_outside_the_workdir_survive(attack: str, tmp_path: Path, contained: None) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("alive")
    verdict = run(f"import os, shutil, subprocess\nCANARY = {str(canary)!r}\n{attack}\n")
    assert verdict.status == "error"
    assert canary.read_text() == "alive"
    if attack.startswith("os.remove"):
        assert verdict.load_error is not None and "sandbox:" in verdict.load_error.message  # the audit hook


def test_api_key_is_out_of_reach(monkeypatch: pytest.MonkeyPatch, contained: None) -> None:
    secret = "sk-sandbox-canary-4242"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    code = (
        "import os, subprocess\n"
        "print(os.environ.get('OPENAI_API_KEY'))\n"
        "for pid in ['self', str(os.getppid()), '1', *os.listdir('/proc')]:\n"
        "    try:\n"
        "        print(open(f'/proc/{pid}/environ', 'rb').read())\n"
        "    except OSError as error:\n"
        "        print(pid, error)\n"
        "print(subprocess.run(['cat', f'/proc/{os.getppid()}/environ'], capture_output=True).stdout)\n"
        "print(subprocess.run(['env'], capture_output=True, text=True).stdout)\n"
    )
    verdict = run(code, output_bytes=1 << 20)
    assert verdict.passed and not verdict.stdout.truncated
    assert verdict.stdout.text.startswith("None\n")
    assert secret not in verdict.stdout.text + verdict.stderr.text


@needs_root
def test_no_network(contained: None) -> None:
    verdict = run("import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)\n")
    assert verdict.status == "error" and verdict.load_error is not None
    assert verdict.load_error.type == "OSError" and "unreachable" in verdict.load_error.message


def test_sys_exit_before_the_tests_is_not_a_pass(contained: None) -> None:
    verdict = run("import sys\nsys.exit(0)\n", "assert True")
    assert verdict.status == "exited_early" and verdict.tests == []
    in_test = run("import sys\ndef f():\n    sys.exit(0)\n", "assert f() is None", "assert True")
    assert in_test.status == "exited_early"


def test_os_exit_is_not_a_pass(contained: None) -> None:
    at_load = run("import os\nos._exit(0)\n", "assert True")
    assert at_load.status == "exited_early" and at_load.exit_code == 0
    in_test = run("import os\ndef f():\n    os._exit(0)\n", "assert True", "assert f() is None", "assert True")
    assert in_test.status == "exited_early" and [t.outcome for t in in_test.tests] == ["passed"]


def test_closing_stdout_does_not_matter(contained: None) -> None:
    verdict = run("import os, sys\nsys.stdout.close()\nos.close(1)\nos.close(2)\n" + ADD, "assert add(1, 2) == 3")
    assert verdict.passed


def test_closing_every_descriptor_or_forging_the_report_is_not_a_pass(contained: None) -> None:
    closed = run("import os\nos.closerange(0, 1 << 16)\n" + ADD, "assert add(1, 2) == 3")
    assert closed.status == "exited_early"
    forge = (
        "import json, os\n"
        "line = (json.dumps({'event': 'done', 'nonce': 'guessed', 'pid': os.getpid()}) + '\\n').encode()\n"
        "for fd in range(3, 64):\n    try:\n        os.write(fd, line)\n    except OSError:\n        pass\n"
        "os._exit(0)\n"
    )
    assert run(forge, "assert False").status == "exited_early"


@needs_root
def test_double_forked_daemon_does_not_outlive_the_run(contained: None) -> None:
    # The program goes on only once the daemon has printed its pid (a pipe): on a loaded machine the sandbox's end
    # could otherwise kill the daemon before it ever ran, leaving nothing to look for.
    code = (
        "import os, signal, time\n"
        "ready, announced = os.pipe()\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
        "            signal.signal(sig, signal.SIG_IGN)\n"
        "        print('daemon', os.getpid(), flush=True)\n"
        "        os.write(announced, b'x')\n"
        "        while True:\n"
        "            time.sleep(0.05)\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "os.read(ready, 1)\n" + ADD
    )
    verdict = run(code, "assert add(1, 2) == 3")
    assert verdict.passed
    word, pid = verdict.stdout.text.split()
    assert word == "daemon"
    status = Path(f"/proc/{pid}/status")
    assert not status.exists() or "State:\tZ" in status.read_text()


A_HARNESS_STOPPING_MID_TEST = """
import sys, threading
from envs.sandbox import AssertTests, run_tests
threading.Thread(target=run_tests, args=(sys.argv[1], AssertTests(asserts=["assert True"])), daemon=True).start()
sys.stdin.readline()
sys.exit(130)
"""
SLEEPS = "import time\ntime.sleep(60)\n"
FORKS_A_SLEEPER = "import os, time\nos.fork()\ntime.sleep(60)\n"


def sandbox_processes_within(seconds: float, wanted: Callable[[int], bool]) -> int:
    """How many sandbox processes run once `wanted(count)` holds, or when `seconds` have passed."""
    deadline = time.monotonic() + seconds
    while not wanted(count := len(running_sandbox_processes())) and time.monotonic() < deadline:
        time.sleep(0.05)
    return count


@needs_root
@pytest.mark.parametrize(
    ("code", "stop", "processes"),
    [(FORKS_A_SLEEPER, "exits", 2), (SLEEPS, "is killed", 1)],
    ids=["the harness exits: the code's own fork too", "the harness is killed: the runner"],
)
def test_a_harness_stopping_mid_test_leaves_no_sandbox_process(
    code: str, stop: str, processes: int, contained: None
) -> None:
    harness = subprocess.Popen(
        [sys.executable, "-c", A_HARNESS_STOPPING_MID_TEST, code], cwd=ROOT, stdin=subprocess.PIPE, text=True
    )
    assert harness.stdin is not None
    try:
        assert sandbox_processes_within(30, lambda count: count >= processes) == processes
        if stop == "exits":  # as after Ctrl-C: the trial threads are left behind, atexit still runs
            harness.stdin.write("\n")
            harness.stdin.flush()
        else:
            harness.kill()
        harness.wait(30)
    finally:
        harness.kill()
    assert sandbox_processes_within(5, lambda count: count == 0) == 0


def test_the_harness_still_works_after_the_hostile_suite() -> None:
    assert run(ADD, "assert add(2, 3) == 5").passed


# ---------------------------------------------------------------- command line


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envs.sandbox", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_asserts_and_check_script(tmp_path: Path) -> None:
    code = tmp_path / "code.py"
    code.write_text(ADD)
    asserts = tmp_path / "asserts.py"
    asserts.write_text("assert add(1, 2) == 3\nassert add(1, 1) == 3\n")
    result = _cli("--code", str(code), "--tests", str(asserts), "--timeout", "5")
    assert result.returncode == 1, result.stderr
    verdict = Verdict.model_validate_json(result.stdout)
    assert verdict.status == "failed" and [t.outcome for t in verdict.tests] == ["passed", "failed"]
    script = tmp_path / "check.py"
    script.write_text("def check(candidate):\n    assert candidate(2, 2) == 4\n")
    passed = _cli("--code", str(code), "--tests", str(script), "--entry-point", "add")
    assert passed.returncode == 0 and json.loads(passed.stdout)["status"] == "passed"


def test_cli_help_and_bad_input(tmp_path: Path) -> None:
    help_text = _cli("--help").stdout
    assert "--entry-point" in help_text and "check(candidate)" in help_text and "top-level statement" in help_text
    missing = _cli("--code", str(tmp_path / "nope.py"), "--tests", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "nope.py" in missing.stderr and missing.stdout == ""
