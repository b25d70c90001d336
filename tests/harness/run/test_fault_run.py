"""A real run over HTTP against the fault server: faults cost retries, never records; a dead server ends the
run with one sentence, keeps what was recorded, and the same command resumes once the server is back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.records import TrialRecord, read_manifest, read_trials
from tests.harness.llm.fault_server import Fault, FaultServer
from tests.runner import REPLAY_CACHE, reflector_stop_override, run_cli
from tests.harness.run.test_replay import RECORDED_RUN

pytestmark = pytest.mark.slow

TIMEOUT_S = 1.0
# Every kind of fault the backend must survive, one after another, each followed by healthy answers.
SPRINKLED = [
    Fault.http(429, retry_after=0.05),
    Fault.http(429),
    Fault.http(500),
    Fault.http(502),
    Fault.http(503),
    Fault("timeout", stall_s=TIMEOUT_S + 0.5),
    Fault("drop"),
    Fault("malformed_json"),
    Fault("empty_choices"),
    Fault("truncated"),
    Fault("trickle", stall_s=0.02),  # the whole answer would take seconds: cut at TIMEOUT_S and retried
]
HEALTHY_BETWEEN = 9  # the recorded run makes 124 calls: eleven faults land across both trials
FAIL_FROM = 70  # past trial 0 of both games (31 calls each), inside trial 1 of the first
# What differs by nature between an HTTP run and a replay of the embedded model: clocks, retries, cache hits, the
# model's name and every call (another backend: another key, host and cache flag).
NOT_COMPARED = {"timing", "retries", "cache_hits", "llm_latency_s", "actor_model", "reflector_model", "calls"}


def comparable(records: list[TrialRecord]) -> dict[tuple[str, str, int, int], dict[str, Any]]:
    return {r.key: r.model_dump(exclude=NOT_COMPARED) for r in records}


def http_run(server: FaultServer, run_dir: Path, tmp_path: Path) -> Any:
    """The recorded experiment with the openai backend at the fault server, every answer fetched over HTTP."""
    return run_cli(
        *(o for o in RECORDED_RUN if not o.startswith(("model=", "llm.cache."))),
        "model=openai-compatible",
        f"model.base_url={server.base_url}",
        "model.model=qwen2.5-coder-1.5b",
        reflector_stop_override("qwen2.5-coder-1.5b"),
        "model.max_retries=3",  # settings configs/model/openai-compatible.yaml leaves out: no `+` needed
        "model.retry_max_wait_s=0.05",
        f"model.timeout_s={TIMEOUT_S}",
        "llm.cache.mode=off",
        f"llm.cache.path={tmp_path / 'unused-cache.jsonl'}",
        f"hydra.run.dir={run_dir}",
        env={"OPENAI_API_KEY": "dummy", "NO_PROXY": "127.0.0.1,localhost"},
    )


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, int], dict[str, Any]]:
    run_dir = tmp_path_factory.mktemp("replay") / "run"
    result = run_cli(*RECORDED_RUN, f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr
    return comparable(read_trials(run_dir))


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer(REPLAY_CACHE) as running:
        yield running


def test_a_run_through_sprinkled_faults_records_every_trial_and_counts_the_retries(
    server: FaultServer, replayed: dict[tuple[str, str, int], dict[str, Any]], tmp_path: Path
) -> None:
    server.schedule([slot for fault in SPRINKLED for slot in (fault, *[None] * HEALTHY_BETWEEN)])
    result = http_run(server, tmp_path / "run", tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(server.injected) == len(SPRINKLED)
    records = read_trials(tmp_path / "run")
    assert comparable(records) == replayed
    named = "openai-compatible (qwen2.5-coder-1.5b @ 127.0.0.1:"
    assert all(r.cache_hits == 0 and r.actor_model.startswith(named) for r in records)
    assert all(len(r.calls) == r.llm_calls and not any(c.cached for c in r.calls) for r in records)
    # Needs `retries=sum(m.retries for m in meters),` in the TrialRecord(...) of harness/run/loop.py:play_trial.
    assert sum(r.retries for r in records) == len(server.injected)


def test_a_dead_server_stops_the_run_cleanly_and_the_same_command_resumes(
    server: FaultServer, replayed: dict[tuple[str, str, int], dict[str, Any]], tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    server.fail_from(FAIL_FROM, Fault.http(503))
    failed = http_run(server, run_dir, tmp_path)
    assert failed.returncode != 0
    assert "Traceback" not in failed.stderr
    last_line = failed.stderr.strip().splitlines()[-1]
    assert last_line.startswith("error: model 'qwen2.5-coder-1.5b' at http://127.0.0.1:")
    assert "still failing after 4 attempts" in last_line and "HTTP 503" in last_line
    # Every failing call made four attempts: no call went on retrying beyond the budget. (The one-worker pool
    # may already have started the next game's trial when the error arrives; that trial fails the same way.)
    assert (server.requests - (FAIL_FROM - 1)) % 4 == 0
    kept = read_trials(run_dir)
    assert len(kept) == 2  # trial 0 of both games
    assert comparable(kept) == {key: replayed[key] for key in comparable(kept)}
    manifest = read_manifest(run_dir)
    assert manifest is not None and manifest.status == "failed"

    server.heal()
    resumed = http_run(server, run_dir, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    records = read_trials(run_dir)  # raises on a trial recorded twice
    assert comparable(records) == replayed
    manifest = read_manifest(run_dir)
    assert manifest is not None and manifest.status == "finished" and manifest.resumed_from == 2
