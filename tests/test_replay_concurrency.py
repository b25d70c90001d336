"""Records, metrics and the usage table do not depend on how many (condition, task) pairs run at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.records import read_trials, records_without_timing
from harness.metrics.run import METRICS_FILE
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
)
POOL_SIZES = (1, 4)

pytestmark = pytest.mark.slow


def section(summary: str, title: str) -> str:
    return summary.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """The recorded run replayed with one pair at a time and with four, side by side, no model reachable."""
    root = tmp_path_factory.mktemp("pool_sizes")
    no_models = root / "no-models"
    no_models.mkdir()
    runs = {size: root / f"pool{size}" for size in POOL_SIZES}
    processes = [
        subprocess.Popen(
            [sys.executable, str(ROOT / "run.py"), *RUN, f"experiment.max_concurrency={size}", f"hydra.run.dir={run}"],
            cwd=ROOT,
            env={**os.environ, "REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for size, run in runs.items()
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=1800)
        assert process.returncode == 0, stderr
    assert list(no_models.iterdir()) == [], "a replay assembled or loaded a model"
    return runs


def test_records_are_identical_at_any_pool_size(runs: dict[int, Path]) -> None:
    one, four = (read_trials(runs[size]) for size in POOL_SIZES)
    assert {r.condition for r in one} == set(CONDITIONS)
    assert all(r.llm_calls == r.cache_hits > 0 for r in one)
    assert records_without_timing(one) == records_without_timing(four)


def test_metrics_and_the_usage_table_are_identical_at_any_pool_size(runs: dict[int, Path]) -> None:
    assert (runs[1] / METRICS_FILE).read_text() == (runs[4] / METRICS_FILE).read_text()
    one, four = ((runs[size] / "summary.md").read_text() for size in POOL_SIZES)
    for title in ("Conditions", "Reflection repetition per task", "Tokens and estimated cost"):
        assert section(one, title) == section(four, title)


def test_tokens_are_split_by_role_and_the_embedded_model_is_not_priced(runs: dict[int, Path]) -> None:
    records = read_trials(runs[4])
    assert all(r.actor_usage + r.reflector_usage == r.usage for r in records)
    assert all(r.reflector_usage.prompt_tokens == 0 for r in records if r.condition == "no_memory")
    assert any(r.reflector_usage.prompt_tokens > 0 for r in records if r.condition == "self_diagnosis")
    table = section((runs[4] / "summary.md").read_text(), "Tokens and estimated cost")
    calls = sum(r.llm_calls for r in records)
    prompt = sum(r.usage.prompt_tokens for r in records)
    assert f"| total | {calls} | {calls} (100%) | {prompt:,} |" in table
    assert "n/a (no price)" in table and "qwen2.5-coder-1.5b: no price" in table
    assert "## Tokens and estimated cost" in (runs[4] / "report.md").read_text()
