"""The committed cache replays a real multi-trial run, recorded from the embedded model, without a model."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from harness.records import read_manifest, read_trials, records_without_timing
from tests.in_process import run_module
from tests.runner import REPLAY_CACHE, run_cli

# The run the committed cache was recorded from (see tests/fixtures/replay/README.md).
RECORDED_RUN = (
    "experiment=default",
    "strategy=self_diagnosis",
    "model=qwen2.5-coder-1.5b",
    f"llm.cache.path={REPLAY_CACHE}",
    "llm.cache.mode=replay",
)

pytestmark = pytest.mark.slow


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three replays of the recorded run: twice sequentially, once with two tasks at a time."""
    root = tmp_path_factory.mktemp("replays")
    no_models = root / "no-models"
    no_models.mkdir()
    cache_digest = sha256(REPLAY_CACHE)
    runs = {"first": (), "second": (), "concurrent": ("experiment.max_concurrency=2",)}
    for name, extra in runs.items():
        result = run_cli(
            *RECORDED_RUN,
            *extra,
            f"hydra.run.dir={root / name}",
            env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
        )
        assert result.returncode == 0, result.stderr
    # Replay neither wrote to the cache nor assembled or loaded a model.
    assert sha256(REPLAY_CACHE) == cache_digest
    assert list(no_models.iterdir()) == []
    return {name: root / name for name in runs}


def test_replay_makes_no_model_call(replays: dict[str, Path]) -> None:
    records = read_trials(replays["first"])
    assert records
    assert all(r.llm_calls == r.cache_hits and r.llm_calls > 0 for r in records)


def test_replay_twice_gives_identical_records(replays: dict[str, Path]) -> None:
    first, second = read_trials(replays["first"]), read_trials(replays["second"])
    assert records_without_timing(first) == records_without_timing(second)


def test_records_do_not_depend_on_the_pool_size(replays: dict[str, Path]) -> None:
    sequential, concurrent = read_trials(replays["first"]), read_trials(replays["concurrent"])
    assert records_without_timing(sequential) == records_without_timing(concurrent)


def test_the_recorded_run_is_a_real_multi_trial_reflexion_run(replays: dict[str, Path]) -> None:
    records = read_trials(replays["first"])
    games = {r.task_id for r in records}
    assert len(games) == 2
    for game in games:
        mine = sorted((r for r in records if r.task_id == game), key=lambda r: r.trial)
        assert [r.trial for r in mine] == list(range(len(mine)))
        assert all(r.actor_model == "qwen2.5-coder-1.5b" for r in mine)
        for earlier, later in zip(mine, mine[1:]):
            # A later trial exists only after a failure, whose reflection the actor then reads.
            assert not earlier.success and earlier.reflection
            assert later.memory[-1] == earlier.reflection
    assert any(r.trial == 1 for r in records), "the recording should reach a second trial"
    manifest = read_manifest(replays["first"])
    assert manifest is not None and manifest.status == "finished"
    assert manifest.config["llm"]["cache"]["mode"] == "replay"
    assert (replays["first"] / "summary.md").read_text().startswith("# Run summary")


def test_a_replay_miss_names_task_trial_and_key(tmp_path: Path) -> None:
    result = run_cli(*RECORDED_RUN, "experiment.seed=12345", f"hydra.run.dir={tmp_path / 'miss'}")
    assert result.returncode == 2
    message = result.stderr.strip().splitlines()[-1]
    assert "replay miss" in message and "trial 0" in message and "key " in message
    assert "no model was called" in message


def test_a_sweep_over_strategies_lands_one_job_per_strategy(tmp_path: Path) -> None:
    # Trial 0's requests are the same in every condition (common random numbers), so one trial of no_memory is
    # the recorded trial 0; its later trials carry seeds of their own and were never recorded.
    sweep_dir = tmp_path / "sweep"
    overrides = [o for o in RECORDED_RUN if not o.startswith("strategy=")]
    result = run_cli(
        *overrides,
        "strategy=self_diagnosis,no_memory",
        "experiment.trials=1",
        f"hydra.sweep.dir={sweep_dir}",
        multirun=True,
    )
    assert result.returncode == 0, result.stderr
    jobs = sorted(p for p in sweep_dir.iterdir() if p.is_dir())
    assert [p.name for p in jobs] == ["0", "1"]
    conditions = [{r.condition for r in read_trials(job)} for job in jobs]
    assert conditions == [{"self_diagnosis"}, {"no_memory"}]
    no_memory = read_trials(jobs[1])
    assert all(r.memory == [] and r.reflection is None for r in no_memory)
    # Each job wrote its own report; one command combines the sweep's jobs into one.
    assert all((job / "report.md").is_file() for job in jobs)
    combined = run_module("harness.cli.report", *map(str, jobs), "--out", str(sweep_dir), "--no-plots")
    assert combined.returncode == 0, combined.stderr
    table = (sweep_dir / "report.md").read_text().split("## Conditions", 1)[1]
    assert "| self_diagnosis |" in table and "| no_memory |" in table
