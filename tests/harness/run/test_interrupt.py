"""Ctrl-C and SIGTERM stop a real run at once: no further trial starts, the running ones get a short grace and are
recorded, the gate store is not written for any trial left unrecorded, the run ends with one line and its
manifest says interrupted; the same command then completes it as if it had never stopped.

The runs play two pairs at once with the engine in their own process, except where the signal goes to the whole
process group as a terminal sends it (a second signal): there the engine workers are started, as the default
configuration starts them, since they receive it too. Where the engine runs changes no record
(tests/harness/run/test_replay_concurrency.py), and a worker's own stop is tests/harness/domains/alfworld/
test_engine_workers.py's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.records import read_manifest, read_trials, records_without_timing
from harness.run.interrupt import STOP_GRACE_S
from tests.in_process import Outcome, run_in_process
from tests.runner import ROOT, as_from_a_terminal

CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"
# The gated condition alone on the demo's 3 games, 2 at a time: 9 trials, each a second or two when replayed.
GATED = ("experiment=five_conditions_demo", "strategy=[gated]", "experiment.max_concurrency=2")
WIDTH = 2
SLACK_S = 4.0  # writing the manifest and leaving the interpreter, on a loaded machine

pytestmark = pytest.mark.slow


def arguments(run_dir: Path, workers: bool) -> list[str]:
    """The gated replay; without `workers`, its engine in the run's own process (a signal reaches the run, never its
    workers, unless it is sent to the whole group: only the second-signal tests do, and they keep the workers)."""
    replay = ("llm.cache.mode=replay", f"llm.cache.path={CACHE}", "progress=false", "report.plots=false")
    engine = () if workers else ("env.engine_workers=1",)
    return [*GATED, *replay, *engine, f"hydra.run.dir={run_dir}"]


def command(run_dir: Path, workers: bool = False) -> list[str]:
    return [sys.executable, str(ROOT / "run.py"), *arguments(run_dir, workers)]


def resume(run_dir: Path, workers: bool = False) -> Outcome:
    """The same command again, in this process: only the stop needs a process of its own."""
    return run_in_process(*arguments(run_dir, workers))


def lines(run_dir: Path) -> int:
    path = run_dir / "trials.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def gate_origins(run_dir: Path) -> set[tuple[str, int]]:
    """(task, trial) of every proposal, drop and decision the gate store holds."""
    found: set[tuple[str, int]] = set()
    for name in ("proposed.jsonl", "dropped.jsonl", "decisions.jsonl"):
        path = run_dir / "gate" / "gated" / name
        for line in path.read_text().splitlines() if path.exists() else []:
            entry = json.loads(line)
            item = entry if "scope" in entry else entry["item"]  # a decision names its item
            found.add((item["scope"], int(item["origin"].removeprefix("trial "))))
    return found


def interrupt(run_dir: Path, stop_signal: signal.Signals) -> tuple[subprocess.CompletedProcess[str], int, float]:
    """Start the run, send `stop_signal` once its first trial is recorded; (result, lines then, seconds to exit)."""
    process = subprocess.Popen(
        command(run_dir),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    deadline = time.monotonic() + 600
    while lines(run_dir) < 1 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    at_signal, sent = lines(run_dir), time.monotonic()
    process.send_signal(stop_signal)
    stdout, stderr = process.communicate(timeout=120)
    elapsed = time.monotonic() - sent
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), at_signal, elapsed


@pytest.fixture(scope="module")
def uninterrupted(five_conditions_run: Path) -> Path:
    """The gated condition played through: the session's six-condition demo holds it on the same games and cache
    (a condition's records depend neither on the others nor on how many pairs run at once)."""
    return five_conditions_run


def gated(run_dir: Path) -> list[dict]:
    """The gated condition's records, timing aside, in a fixed order."""
    records = [r for r in read_trials(run_dir) if r.condition == "gated"]
    return records_without_timing(sorted(records, key=lambda r: r.key))


@pytest.mark.parametrize(
    "stop_signal", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
def test_a_signal_stops_the_run_within_the_grace_and_the_same_command_completes_it(
    tmp_path: Path, stop_signal: signal.Signals, uninterrupted: Path
) -> None:
    run_dir = tmp_path / "run"
    result, at_signal, elapsed = interrupt(run_dir, stop_signal)
    assert result.returncode == 128 + stop_signal.value, result.stderr
    assert "Traceback" not in result.stderr and "KeyboardInterrupt" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"interrupted: {stop_signal.name} received: no further trial started"), last
    assert "the same command resumes the run." in last
    assert elapsed < STOP_GRACE_S + SLACK_S, f"{elapsed:.1f}s from the signal to the exit"
    recorded = read_trials(run_dir)
    assert at_signal <= len(recorded) <= at_signal + WIDTH, "only the trials running at the signal may finish"
    assert len(recorded) < len(gated(uninterrupted)), "the queued trials were played"
    manifest = read_manifest(run_dir)
    assert manifest is not None and manifest.status == "interrupted"
    unrecorded = gate_origins(run_dir) - {(r.task_id, r.trial) for r in recorded}
    assert not unrecorded, f"the gate was written for trials left unrecorded: {unrecorded}"

    resumed = resume(run_dir)
    assert resumed.returncode == 0, resumed.stderr
    assert gated(run_dir) == gated(uninterrupted)
    assert gate_origins(run_dir) == gate_origins(uninterrupted)
    manifest = read_manifest(run_dir)
    assert manifest is not None and manifest.status == "finished"


def test_a_signal_ignored_by_the_caller_stays_ignored(tmp_path: Path) -> None:
    """nohup and a shell's background jobs start the run with SIGINT ignored: the run does not take it back."""
    run_dir = tmp_path / "run"
    process = subprocess.Popen(
        command(run_dir),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    while lines(run_dir) < 1 and process.poll() is None:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    time.sleep(STOP_GRACE_S + 1)
    if process.poll() is not None:  # a fast machine plays the 9 trials in those seconds: then it must have finished
        manifest = read_manifest(run_dir)
        assert process.returncode == 0 and manifest is not None and manifest.status == "finished"
        return
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    manifest = read_manifest(run_dir)
    # Past its trials (manifest finished) the run writes its report with the default handlers back in place.
    finished = manifest is not None and manifest.status == "finished"
    assert process.returncode == 128 + signal.SIGTERM.value or (finished and process.returncode == -15), stderr


# While loading: half a second in, still importing. While planning: as its run directory appears, before its first
# trial (a fixed delay of 2 s came after the last trial on a fast machine, where the 9 replayed trials take 1.4 s).
@pytest.mark.parametrize("delay_s", [0.5, None], ids=["while loading", "while planning"])
def test_a_signal_before_the_run_began_is_one_line_and_writes_nothing(tmp_path: Path, delay_s: float | None) -> None:
    process = subprocess.Popen(
        command(tmp_path / "run"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    if delay_s is None:
        while not (tmp_path / "run").exists() and process.poll() is None:
            time.sleep(0.005)
    else:
        time.sleep(delay_s)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    manifest = read_manifest(tmp_path / "run") if (tmp_path / "run").is_dir() else None
    if manifest is not None:  # startup was done before the signal: the run began, and says it was interrupted
        assert manifest.status == "interrupted" and last.startswith("interrupted:"), stderr
        return
    assert last.startswith("interrupted: stopped at once"), stderr
    assert not (tmp_path / "run" / "trials.jsonl").exists()


def in_its_own_terminal_group() -> None:
    """A foreground job of its own: a signal to its group reaches the run and its engine workers, as a terminal's."""
    as_from_a_terminal()
    os.setpgrp()


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_second_signal_stops_at_once_with_its_own_exit_code_and_no_traceback(
    tmp_path: Path, stop_signal: signal.Signals, uninterrupted: Path
) -> None:
    """'a second Ctrl-C/SIGTERM/SIGHUP prints a BrokenPipeError traceback from an engine worker, and exits 130
    whatever the signal': 128 + the signal, nothing but the one line, and the same command completes the gated run
    as if it had never stopped (a trial the stop left unrecorded may have admitted its proposals; its replay reads
    the memory it first read)."""
    run_dir = tmp_path / "run"
    process = subprocess.Popen(
        command(run_dir, workers=True), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=in_its_own_terminal_group,
    )
    deadline = time.monotonic() + 600
    while lines(run_dir) < 1 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(process.pid, stop_signal)  # as a terminal delivers it: to the engine workers too
    time.sleep(0.3)
    os.killpg(process.pid, stop_signal)
    _, stderr = process.communicate(timeout=120)
    if process.returncode == 0:
        pytest.skip("the run finished before the second signal")
    assert process.returncode == 128 + stop_signal.value, stderr
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert (run_dir / "trials.jsonl").read_bytes().endswith(b"\n")
    resumed = resume(run_dir, workers=True)
    assert resumed.returncode == 0, resumed.stderr
    keys = [r.key for r in read_trials(run_dir)]
    assert len(keys) == len(set(keys)) and read_manifest(run_dir).status == "finished"
    assert gated(run_dir) == gated(uninterrupted)
