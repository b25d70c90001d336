"""The benchmarks' timed `python run.py`: its parts add up on a real (tiny, replayed) run, and a failure is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks._entry_point import run_entry_point
from tests.runner import REPLAY_CACHE


def test_a_failing_run_raises_with_its_last_error_line(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"exited with 2: error: strategy=no_such_condition is not a known"):
        run_entry_point(["strategy=no_such_condition"], tmp_path / "run")


@pytest.mark.slow
def test_a_replayed_run_is_timed_in_parts(tmp_path: Path) -> None:
    no_models = tmp_path / "no-models"
    no_models.mkdir()
    run = run_entry_point(
        [
            "strategy=no_memory",  # trial 0 asks what the recorded self_diagnosis run asked
            "env.first_n=1",
            "env.max_steps=2",
            "experiment.trials=1",
            "llm.cache.mode=replay",
            f"llm.cache.path={REPLAY_CACHE}",
        ],
        tmp_path / "run",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
    )
    assert [(r.steps, r.llm_calls) for r in run.records] == [(2, 2)]
    assert 0 < run.startup_s and 0 < run.loop_s and 0 < run.finish_s
    assert run.startup_s + run.loop_s < run.wall_s
    # loop_s ends at trials.jsonl's mtime, which the kernel stamps from its coarse clock: up to a tick (10 ms at HZ=100)
    # behind the perf_counter that timed the trial.
    assert run.loop_s + 0.02 >= run.records[0].timing.wall_s >= run.records[0].timing.env_s > 0
    assert run.max_rss_mb > 50  # the interpreter with ALFWorld loaded, at the least
