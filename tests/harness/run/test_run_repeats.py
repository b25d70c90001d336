"""experiment.repeats: k chains of trials per (task, condition), each with its own seeds, resumable after SIGKILL.

A real openai client over HTTP asks the scripted server (a test instrument that answers in arrival order); a
repeated action ends an ALFWorld episode after two steps and ALFWorld reflects after every failed trial, so each
(trial, repeat) of self_diagnosis sends actor, actor, reflector. The recorded cache then replays with no model.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import pytest

from harness.records import read_manifest, read_trials
from harness.run.loop import trial_seed
from tests.killing import WatchedRun
from tests.runner import ROOT, run_cli
from tests.scripted_server import ScriptedServer

GAME = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"
CHAIN_0 = [[" go to desk 1", " go to desk 1", " plan one"], [" go to bed 1", " go to bed 1", " plan two"]]
CHAIN_1 = [[" go to shelf 1", " go to shelf 1", " plan three"], [" go to desk 2", " go to desk 2", " plan four"]]
COMMON = (
    "strategy=[self_diagnosis]",
    "env.set=null",
    f"env.games=[{GAME}]",
    "experiment.trials=2",
    "experiment.max_concurrency=1",
)
MEASURED = ("timing", "llm_latency_s", "actor_model", "reflector_model", "calls")
"""What two plays of the same trial against two scripted servers may differ in: wall-clock figures, and the server's
port in the model's name and in each call (the calls' keys, compared apart, may not)."""

pytestmark = pytest.mark.slow


def scripted(script: list[str], run_dir: Path, cache: Path, *overrides: str) -> list[dict]:
    with ScriptedServer(script) as server:
        result = run_cli(
            "model=openai-compatible",
            f"model.base_url={server.base_url}",
            "llm.cache.mode=auto",
            f"llm.cache.path={cache}",
            *COMMON,
            *overrides,
            f"hydra.run.dir={run_dir}",
            env={"OPENAI_API_KEY": "none"},
        )
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(server.requests) == len(script)
    return server.requests


def replay_command(cache: Path, run_dir: Path) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "run.py"),
        "progress=false",
        "report.plots=false",
        "model=openai-compatible",
        "model.base_url=http://127.0.0.1:9/v1",  # nothing listens: a replay that asked a model would fail
        "llm.cache.mode=replay",
        f"llm.cache.path={cache}",
        *COMMON,
        "experiment.repeats=2",
        f"hydra.run.dir={run_dir}",
    ]


def played(records: list) -> dict:
    return {r.key: {**r.model_dump(exclude=set(MEASURED)), "keys": [c.key for c in r.calls]} for r in records}


@pytest.fixture(scope="module")
def two_repeats(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[dict]]:
    """A repeats=2 run recorded into its own cache: (cache, run directory, request bodies)."""
    root = tmp_path_factory.mktemp("repeats")
    # Trial t of both repeats runs before trial t + 1 of either.
    script = [*CHAIN_0[0], *CHAIN_1[0], *CHAIN_0[1], *CHAIN_1[1]]
    requests = scripted(script, root / "run", root / "cache.jsonl", "experiment.repeats=2")
    return root / "cache.jsonl", root / "run", requests


def test_two_repeats_are_two_chains_with_their_own_seeds_and_repeat_0_is_a_one_repeat_run(
    two_repeats: tuple[Path, Path, list[dict]], tmp_path: Path
) -> None:
    _, run_dir, requests = two_repeats
    records = read_trials(run_dir)
    assert sorted(r.key[2:] for r in records) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    by_chain = {(r.repeat, r.trial): r for r in records}
    # Each chain reads its own memory: repeat 1's trial 1 remembers repeat 1's trial 0, not repeat 0's.
    assert [by_chain[(1, t)].reflection.strip() for t in (0, 1)] == ["plan three", "plan four"]
    assert [m.strip() for m in by_chain[(1, 1)].memory] == ["plan three"]
    assert [m.strip() for m in by_chain[(0, 1)].memory] == ["plan one"]
    seeds = [body["seed"] for body in requests]
    assert seeds[0:3] == [trial_seed(0, 0)] * 3 and seeds[3:6] == [trial_seed(0, 0, 1)] * 3
    assert seeds[6:9] == [trial_seed(0, 1)] * 3 and seeds[9:12] == [trial_seed(0, 1, 1)] * 3
    assert len(set(seeds)) == 4
    # Repeat 1's trial 0 asks repeat 0's question again; its own seed makes it a new request, not a cache hit.
    assert requests[0]["prompt"] == requests[3]["prompt"] and by_chain[(1, 0)].cache_hits == 0
    manifest = read_manifest(run_dir)
    assert manifest is not None and manifest.config["experiment"]["repeats"] == 2

    one = tmp_path / "one"
    scripted([*CHAIN_0[0], *CHAIN_0[1]], one, tmp_path / "cache.jsonl")
    assert played(read_trials(one)) == {k: v for k, v in played(records).items() if k[3] == 0}


def test_seeds_of_repeat_0_are_the_seeds_runs_had_and_other_repeats_their_own() -> None:
    assert [trial_seed(5, t, 0) for t in range(4)] == [trial_seed(5, t) for t in range(4)]
    seeds = {trial_seed(5, t, r) for t in range(20) for r in range(5)}
    assert len(seeds) == 100 and all(0 <= seed < 2**31 for seed in seeds)


def test_a_repeats_run_killed_again_and_again_resumes_without_loss_or_duplicate(
    two_repeats: tuple[Path, Path, list[dict]], tmp_path: Path
) -> None:
    cache, _, _ = two_repeats
    reference = tmp_path / "reference"
    result = run_cli(*replay_command(cache, reference)[3:], env={"OPENAI_API_KEY": "none"})
    assert result.returncode == 0, result.stderr[-2000:]
    expected = played(read_trials(reference))
    assert len(expected) == 4

    killed = tmp_path / "killed"
    env = {**os.environ, "OPENAI_API_KEY": "none"}
    kills = 0
    for attempt in range(12):
        with (tmp_path / f"attempt{attempt}.txt").open("wb") as stderr:
            run = WatchedRun.start(replay_command(cache, killed), killed, env, stderr)
            # Alternately right after a record lands and as soon as the manifest is out (before any trial ends).
            if attempt % 2:
                ready = run.wait_until(lambda r: r.manifest_at is not None)
            else:
                ready = run.wait_until(lambda r: bool(r.appends))
            if not ready:
                assert run.process.wait() == 0, (tmp_path / f"attempt{attempt}.txt").read_text()
                break
            kills += run.kill()
            records = read_trials(killed)
            assert len({r.key for r in records}) == len(records), "a resume played a recorded trial again"
            assert all(played([r])[r.key] == expected[r.key] for r in records)
    manifest = read_manifest(killed)
    assert manifest is not None and manifest.status == "finished" and kills >= 2
    records = read_trials(killed)
    assert Counter(r.key for r in records) == Counter(list(expected)) and played(records) == expected


def test_a_replay_miss_names_the_repeat_it_was_in(two_repeats: tuple[Path, Path, list[dict]], tmp_path: Path) -> None:
    """A third repeat has no answers in a two-repeat run's cache: the one sentence says which chain asked."""
    cache, _, _ = two_repeats
    command = [arg.replace("experiment.repeats=2", "experiment.repeats=3") for arg in replay_command(cache, tmp_path)]
    result = run_cli(*command[3:], env={"OPENAI_API_KEY": "none"})
    assert result.returncode != 0
    assert f"task {GAME}, trial 0, repeat 2, condition self_diagnosis, role actor" in result.stderr, result.stderr
