"""Records, metrics and the usage table do not depend on how many (condition, task) pairs run at once, nor on
whether ALFWorld's engine runs in the run's process or in worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.records import read_trials, records_without_timing
from harness.metrics.run import METRICS_FILE
from tests.engine_workers import worker_pids
from tests.runner import REPLAY_CACHE, ROOT

# The committed replay cache covers no_memory too: its trial 0 is self_diagnosis's, its trial 1 was recorded (fixture README).
CONDITIONS = ("self_diagnosis", "no_memory")
RUN = (
    "experiment=default",
    f"strategy=[{','.join(CONDITIONS)}]",
    "model=qwen2.5-coder-1.5b",
    f"llm.cache.path={REPLAY_CACHE}",
    "llm.cache.mode=replay",
    "progress=false",
    "report.plots=false",
)
# (max_concurrency, env.engine_workers): one pair at a time in-process, 16 in-process, 16 on four workers.
SETUPS = {"c1_w1": (1, 1), "c16_w1": (16, 1), "c16_w4": (16, 4)}
BASE = "c1_w1"

pytestmark = pytest.mark.slow


def section(summary: str, title: str) -> str:
    return summary.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The recorded run replayed in every setup, side by side, no model reachable; no worker outlives its run."""
    root = tmp_path_factory.mktemp("pool_sizes")
    no_models = root / "no-models"
    no_models.mkdir()
    runs = {name: root / name for name in SETUPS}
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "run.py"),
                *RUN,
                f"experiment.max_concurrency={SETUPS[name][0]}",
                f"env.engine_workers={SETUPS[name][1]}",
                f"hydra.run.dir={run}",
            ],
            cwd=ROOT,
            env={**os.environ, "REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, run in runs.items()
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=1800)
        assert process.returncode == 0, stderr
        assert worker_pids(process.pid) == []
    assert list(no_models.iterdir()) == [], "a replay assembled or loaded a model"
    return runs


@pytest.mark.parametrize("setup", [name for name in SETUPS if name != BASE])
def test_records_are_identical_at_any_pool_size_and_worker_count(runs: dict[str, Path], setup: str) -> None:
    base, other = read_trials(runs[BASE]), read_trials(runs[setup])
    assert {r.condition for r in base} == set(CONDITIONS)
    assert all(r.llm_calls == r.cache_hits > 0 for r in base)
    assert records_without_timing(base) == records_without_timing(other)


@pytest.mark.parametrize("setup", [name for name in SETUPS if name != BASE])
def test_metrics_and_the_usage_table_are_identical_at_any_pool_size(runs: dict[str, Path], setup: str) -> None:
    assert (runs[BASE] / METRICS_FILE).read_text() == (runs[setup] / METRICS_FILE).read_text()
    base, other = ((runs[name] / "summary.md").read_text() for name in (BASE, setup))
    for title in ("Conditions", "Reflection repetition per task", "Tokens and estimated cost"):
        assert section(base, title) == section(other, title)


def test_the_engine_cpu_is_recorded_in_process_and_on_workers(runs: dict[str, Path]) -> None:
    for name in SETUPS:
        assert all(r.timing.env_cpu_s is not None and r.timing.env_cpu_s > 0 for r in read_trials(runs[name]))


def test_tokens_are_split_by_role_and_the_embedded_model_is_not_priced(runs: dict[str, Path]) -> None:
    records = read_trials(runs["c16_w4"])
    assert all(r.actor_usage + r.reflector_usage == r.usage for r in records)
    assert all(r.reflector_usage.prompt_tokens == 0 for r in records if r.condition == "no_memory")
    assert any(r.reflector_usage.prompt_tokens > 0 for r in records if r.condition == "self_diagnosis")
    table = section((runs["c16_w4"] / "summary.md").read_text(), "Tokens and estimated cost")
    calls = sum(r.llm_calls for r in records)
    prompt = sum(r.usage.prompt_tokens for r in records)
    assert f"| total | {calls} | {calls} (100%) | {prompt:,} |" in table
    assert "n/a (no price)" in table and "qwen2.5-coder-1.5b: no price" in table
    assert "## Tokens and estimated cost" in (runs["c16_w4"] / "report.md").read_text()
