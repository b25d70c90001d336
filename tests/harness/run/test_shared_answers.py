"""Conditions share their first attempt, and runs sharing a cache file share its answers, however many ask at once:
HotpotQA over real HTTP against a server whose every answer differs (tests/varying_server.py), then replayed from
the run's own cache."""

from __future__ import annotations

import json
import multiprocessing
from collections import Counter
from pathlib import Path
from typing import Any

from harness.records import TrialRecord, read_trials
from tests.runner import run_cli
from tests.varying_server import VaryingServer

CONDITIONS = ("self_diagnosis", "no_memory")
RUN = (
    "env=hotpotqa",
    "env.first_n=1",
    f"strategy=[{','.join(CONDITIONS)}]",
    "experiment.trials=2",
    "experiment.max_concurrency=2",
    "model=openai-compatible",
)
KEY = {"OPENAI_API_KEY": "none"}


def answers(record: TrialRecord) -> dict[str, Any]:
    """What a record says the models answered: all of it but timing and whether the cache answered."""
    kept = record.model_dump(exclude={"timing", "cache_hits", "condition"})
    kept["calls"] = [{k: v for k, v in call.items() if k != "cached"} for call in kept["calls"]]
    return kept


def first_attempt(record: TrialRecord) -> dict[str, Any]:
    """A trial's attempt: what the actor was asked (its calls' keys) and what it answered."""
    actor_keys = [call.key for call in record.calls if call.role == "actor"]
    return {"keys": actor_keys, "attempt": record.attempt_details, "trajectory": record.trajectory}


def by_key(records: list[TrialRecord]) -> dict[tuple, dict[str, Any]]:
    return {record.key: answers(record) for record in records}


def one_line_per_key(cache: Path) -> bool:
    keys = Counter(json.loads(line)["key"] for line in cache.read_text().splitlines())
    return set(keys.values()) == {1}


def replayed(base_url: str, cache: Path, run_dir: Path) -> list[TrialRecord]:
    """The run again from `cache` alone, once the server is gone (a miss would fail it)."""
    result = run_cli(
        *RUN, f"model.base_url={base_url}", "llm.cache.mode=replay", f"llm.cache.path={cache}",
        f"hydra.run.dir={run_dir}", env=KEY,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return read_trials(run_dir)


def play(base_url: str, cache: Path, run_dir: Path) -> int:
    result = run_cli(*RUN, f"model.base_url={base_url}", f"llm.cache.path={cache}", f"hydra.run.dir={run_dir}", env=KEY)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.returncode


def test_conditions_side_by_side_share_their_first_attempt_and_replay_it(tmp_path: Path) -> None:
    """'One answer, two model calls': with experiment.max_concurrency > 1 both conditions' first trials sent the same
    request at once, both missed and both called the model; the records held one key with two answers, the
    conditions no longer shared their first attempt, and a replay of the run from its own cache diverged."""
    cache = tmp_path / "cache.jsonl"
    with VaryingServer("Finish[answer {n}]", delay_s=0.3) as server:
        play(server.base_url, cache, tmp_path / "run")
        assert set(server.asked.values()) == {1}, "a request reached the model twice"
    records = read_trials(tmp_path / "run")
    first = {r.condition: first_attempt(r) for r in records if r.trial == 0}
    assert first["self_diagnosis"] == first["no_memory"]
    assert one_line_per_key(cache)
    assert by_key(replayed(server.base_url, cache, tmp_path / "replay")) == by_key(records)


def play_in_a_process(base_url: str, cache: str, run_dir: str) -> None:
    play(base_url, Path(cache), Path(run_dir))


def test_two_runs_sharing_one_cache_file_get_one_answer_per_key(tmp_path: Path) -> None:
    """'Two runs sharing one cache file do the same': each asked the model for the requests of the other."""
    cache = tmp_path / "cache.jsonl"
    runs = [tmp_path / "run_a", tmp_path / "run_b"]
    context = multiprocessing.get_context("fork")
    with VaryingServer("Finish[answer {n}]", delay_s=0.3) as server:
        processes = [
            context.Process(target=play_in_a_process, args=(server.base_url, str(cache), str(run))) for run in runs
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=300)
            assert process.exitcode == 0
        assert set(server.asked.values()) == {1}, "a request reached the model twice"
    played = [by_key(read_trials(run)) for run in runs]
    assert played[0] == played[1]
    assert one_line_per_key(cache)
    assert by_key(replayed(server.base_url, cache, tmp_path / "replay")) == played[0]
