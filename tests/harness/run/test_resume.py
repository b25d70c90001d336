"""A live run (no cache) killed with SIGKILL while a model call is in flight resumes with every trial exactly once.

The model is the embedded SmolLM2-135M's recorded answers (benchmarks/fixtures/) served over real HTTP by the latency
server, each after a delay, to the real openai client: every call is live, as on a model of the user's, and a kill
lands in the middle of one. (The embedded llama.cpp backend itself is played by tests/harness/llm/; twenty kills of a
replayed run, at every phase, by test_kill_resume.py.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.latency_server import LatencyServer
from benchmarks.throughput import API_KEY_ENV, FIXTURE
from harness.records import TRIALS_FILE, read_trials
from tests.in_process import run_in_process
from tests.runner import ROOT

pytestmark = pytest.mark.slow

GAMES = 4
RUN = (
    "progress=false",
    "report.plots=false",
    "model=openai-compatible",
    "model.model=smollm2-135m",
    "strategy=no_memory",
    "env.set=null",
    f"env.first_n={GAMES}",
    "env.max_steps=10",
    "experiment.trials=1",
    "llm.cache.mode=off",
)
DELAY_S = 0.05


def complete_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_mid_run_then_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with LatencyServer(FIXTURE, delay_s=DELAY_S) as server:
        args = [sys.executable, str(ROOT / "run.py"), *RUN, f"model.base_url={server.base_url}"]
        args += [f"llm.cache.path={tmp_path / 'unused.jsonl'}", f"hydra.run.dir={run_dir}"]
        env = {**os.environ, **API_KEY_ENV}
        process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        trials = run_dir / TRIALS_FILE
        deadline = time.monotonic() + 300
        while complete_lines(trials) < 1 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        served = server.served
        while server.served == served and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)  # into the next trial's calls: one is in flight now
        assert process.poll() is None, "the run ended before it could be killed mid-way"
        process.send_signal(signal.SIGKILL)
        process.wait()
        kept = trials.read_bytes()
        assert 1 <= kept.count(b"\n") < GAMES
        # Also leave the torn line a kill during a write would leave.
        trials.write_bytes(kept + b'{"schema_version": 1, "task_id": "pick_')

        # The same command again, in this process: only the kill needs a process of its own.
        resumed = run_in_process(*args[2:], env=API_KEY_ENV)
        assert server.refused == 0, "a request the recording does not hold"
    assert resumed.returncode == 0, resumed.stderr
    assert "torn last line" in resumed.stderr
    assert trials.read_bytes().startswith(kept), "records written before the kill must be kept as they were"

    records = read_trials(run_dir)
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == GAMES
    assert all(r.trial == 0 and r.llm_calls > 0 and r.cache_hits == 0 for r in records)
    manifest_text = (run_dir / "manifest.json").read_text()
    assert '"status": "finished"' in manifest_text
