"""Progress that reaches the user, in real runs replayed from the committed caches: progress lines off a terminal
(captured output and run.log, in this process) with counts the records bear out, a bar on a pseudo-terminal that
leaves the log lines whole, and a line thread that stops with the run, however it ends (those two in processes)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from harness.records import read_trials
from tests.in_process import run_in_process
from tests.runner import REPLAY_CACHE, ROOT, as_from_a_terminal, run_cli

DEMO = ("llm.cache.mode=replay", f"llm.cache.path={REPLAY_CACHE}", "report.plots=false")
FIVE_CONDITIONS_CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"
LINE = re.compile(
    r"INFO progress: (?P<done>\d+) of at most (?P<planned>\d+) trials done, (?P<in_flight>\d+) in flight, "
    r"(?P<calls>[\d,]+) model calls, (?P<tokens>[\d,]+) tokens, elapsed [\d:]+, ETA (?P<eta>unknown|[\d:]+)$"
)


def command(run_dir: Path, *overrides: str) -> list[str]:
    return [sys.executable, str(ROOT / "run.py"), *DEMO, *overrides, f"hydra.run.dir={run_dir}"]


def progress_lines(text: str) -> list[re.Match[str]]:
    found = [LINE.search(line) for line in text.splitlines() if "INFO progress: " in line]
    assert all(found), text
    return found  # type: ignore[return-value]


def number(match: re.Match[str], name: str) -> int:
    return int(match[name].replace(",", ""))


def test_off_a_terminal_progress_lines_come_every_interval_and_end_on_the_records(run_dir: Path) -> None:
    result = run_in_process(*DEMO, "progress_interval_s=0.01", f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr
    lines = progress_lines(result.stderr)
    assert len(lines) >= 2, "the line thread logged nothing in a loop of about a second, 10 ms apart"
    done = [number(m, "done") for m in lines]
    planned = [number(m, "planned") for m in lines]
    assert all(d <= p for d, p in zip(done, planned))
    assert done == sorted(done) and planned == sorted(planned, reverse=True)
    assert all((m["eta"] == "unknown") == (number(m, "done") == 0) for m in lines)
    records = read_trials(run_dir)
    last = lines[-1]
    assert number(last, "done") == number(last, "planned") == len(records)
    assert number(last, "in_flight") == 0
    assert number(last, "calls") == sum(r.llm_calls for r in records)
    assert number(last, "tokens") == sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in records)
    # Nothing of the line thread after the loop: the last progress line comes before the run's closing lines.
    tail = result.stderr.strip().splitlines()
    assert tail[-1].endswith(f"metrics in {run_dir / 'metrics.json'}")
    # (Two lines can be equal to the millisecond, the thread's last tick and the loop's closing line: so the check
    # is on what follows the run's closing lines, not on what follows the first copy of the last line.)
    closing = next(i for i, line in enumerate(tail) if re.search(r"INFO \w+: solved \d+/\d+$", line))
    assert tail.index(last.string) < closing
    assert not [line for line in tail[closing:] if "INFO progress: " in line]
    logged = (run_dir / "run.log").read_text()
    assert len(progress_lines(logged)) == len(lines)


def test_progress_false_logs_no_progress_line(run_dir: Path) -> None:
    result = run_in_process(*DEMO, "progress=false", "progress_interval_s=0.01", f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr
    assert "progress: " not in result.stderr and "progress: " not in (run_dir / "run.log").read_text()


def read_terminal(command_line: list[str]) -> tuple[int, str]:
    """Run with stdin, stdout and stderr on a fresh pseudo-terminal of 160 columns; (exit code, what it showed)."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    process = subprocess.Popen(command_line, cwd=ROOT, stdin=terminal, stdout=terminal, stderr=terminal)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the run closed its end
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    return process.wait(timeout=600), shown.decode(errors="replace")


def test_on_a_terminal_a_bar_shows_rate_eta_and_the_step_and_the_log_lines_stay_whole(run_dir: Path) -> None:
    code, shown = read_terminal(command(run_dir, "progress_interval_s=0.01"))
    assert code == 0, shown
    assert re.search(r"trials: +\d+%\|.*\| \d+/\d+ \[[\d:]+<[\d:?]+, ", shown), "no tqdm bar with ETA"
    assert re.search(r"trial [12]/2 \| self_diagnosis \S+ step \d+", shown), "no step in flight"
    assert "INFO progress: " not in shown  # the bar, not the lines, on a terminal
    # tqdm clears the bar (`\r`), writes the line, and draws the bar again: each line is a piece of its own.
    pieces = set(re.split(r"[\r\n]+", shown))
    for line in (run_dir / "run.log").read_text().splitlines():
        assert line in pieces, f"the bar cut into the log line {line!r}"


@pytest.mark.slow
def test_a_stop_signal_ends_the_line_thread_before_the_run_s_last_line(run_dir: Path) -> None:
    gated = ("experiment=five_conditions_demo", "strategy=[gated]", "experiment.max_concurrency=2")
    cache = ("llm.cache.mode=replay", f"llm.cache.path={FIVE_CONDITIONS_CACHE}", "report.plots=false")
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "run.py"), *gated, *cache, "progress_interval_s=0.01", f"hydra.run.dir={run_dir}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    trials = run_dir / "trials.jsonl"
    deadline = time.monotonic() + 600
    while not (trials.exists() and trials.read_bytes()) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM.value, stderr
    lines = stderr.strip().splitlines()
    assert lines[-1].startswith("interrupted: SIGTERM received"), lines[-1]
    assert progress_lines(stderr), "no progress line before the signal"
    assert "progress: " not in lines[-1]


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("progress_interval_s=0", "progress_interval_s = 0 is invalid: Input should be greater than 0"),
        ("progress_interval_s=true", "progress_interval_s = True is invalid: Input should be a valid number"),
        ("progress_intervl_s=5", "the closest is progress_interval_s"),
    ],
)
def test_a_bad_interval_is_one_sentence_and_writes_nothing(run_dir: Path, override: str, needle: str) -> None:
    result = run_cli(override, f"hydra.run.dir={run_dir}")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and needle in result.stderr, result.stderr
    assert not run_dir.exists()
