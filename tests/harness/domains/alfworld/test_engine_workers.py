"""A run whose engine worker dies: one sentence, the trial not recorded, no worker left; resuming completes it. Engine
processes start only where episodes can overlap."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.records import read_trials, records_without_timing
from tests.engine_workers import worker_pids
from tests.runner import REPLAY_CACHE, ROOT, as_from_a_terminal, quiet, run_cli

RUN = (
    "experiment=default",
    "strategy=[self_diagnosis,no_memory]",
    "model=qwen2.5-coder-1.5b",
    f"llm.cache.path={REPLAY_CACHE}",
    "llm.cache.mode=replay",
    "experiment.max_concurrency=4",
    "env.engine_workers=2",
)
POLL_S = 0.01

pytestmark = pytest.mark.slow


def start(run_dir: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "run.py"), *quiet(*RUN), f"hydra.run.dir={run_dir}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )


def wait_for_workers(process: subprocess.Popen[str], count: int, timeout: float = 120) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = worker_pids(process.pid)
        if len(pids) >= count:
            return pids
        assert process.poll() is None, "the run ended before its workers started"
        time.sleep(POLL_S)
    raise AssertionError(f"fewer than {count} engine workers after {timeout} s")


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("clean") / "run"
    result = run_cli(*RUN, f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr
    return run_dir


def test_a_dead_worker_stops_the_run_in_one_sentence_and_resume_completes_it(clean: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    process = start(run_dir)
    victim = wait_for_workers(process, 2)[0]
    os.kill(victim, signal.SIGKILL)
    _, stderr = process.communicate(timeout=600)
    assert process.returncode != 0
    last = stderr.strip().splitlines()[-1]
    assert f"(pid {victim}) was killed by signal 9 while playing" in last, stderr
    assert "Traceback" not in stderr
    assert worker_pids(process.pid) == []
    killed = read_trials(run_dir)
    full = read_trials(clean)
    assert len(killed) < len(full), "the trial on the dead worker was recorded"
    resumed = run_cli(*RUN, f"hydra.run.dir={run_dir}")
    assert resumed.returncode == 0, resumed.stderr
    assert records_without_timing(read_trials(run_dir)) == records_without_timing(full)


def test_no_worker_outlives_an_interrupted_run(tmp_path: Path) -> None:
    process = start(tmp_path / "run")
    wait_for_workers(process, 1)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=600)
    assert process.returncode != 0
    assert worker_pids(process.pid) == []


@pytest.mark.parametrize(
    ("strategies", "on_workers"), [("[self_diagnosis]", False), ("[self_diagnosis,no_memory]", True)]
)
def test_engine_processes_start_only_where_episodes_can_overlap(
    tmp_path: Path, strategies: str, on_workers: bool
) -> None:
    """With engine_workers at its per-core default, one game of one condition plays in the run's own process however
    high max_concurrency is (its episodes never overlap, and a worker costs its start); two conditions overlap."""
    overrides = [o for o in RUN if not o.startswith(("strategy=", "env.engine_workers="))]
    one_game = ("env.first_n=1", "experiment.trials=1", f"hydra.run.dir={tmp_path}")
    result = run_cli(*overrides, f"strategy={strategies}", *one_game)
    assert result.returncode == 0, result.stderr
    records = read_trials(tmp_path)
    assert len(records) == strategies.count(",") + 1
    # engine_wait_s is measured on workers only (harness/records/trial.py Timing).
    assert [r.timing.engine_wait_s is not None for r in records] == [on_workers] * len(records)
