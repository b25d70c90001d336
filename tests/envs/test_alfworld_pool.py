"""ALFWorld episodes on engine worker processes: the same text as in this process, dead workers named, none left."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from envs.alfworld import AlfworldEpisode, AlfworldGame, list_games
from envs.alfworld_pool import EngineWorkers, RemoteEpisode
from harness.errors import EngineWorkerError

GAMES = [
    "pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004321_405868",
    "look_at_obj_in_light-Mug-None-DeskLamp-308/trial_T20190908_201421_021646",
    "pick_two_obj_and_place-CD-None-Safe-308/trial_T20190907_051056_585414",
]
HELD_S = 0.3
SCRIPT = ["look", "inventory", "fly to the moon", "go to toilet 1", "examine toilet 1", "go to desk 1", "look"]


@pytest.fixture(scope="module")
def games() -> list[AlfworldGame]:
    by_id = {game.game_id: game for game in list_games()}
    return [by_id[game_id] for game_id in GAMES]


def transcript(episode: AlfworldEpisode | RemoteEpisode) -> list[str]:
    """Everything the game prints for SCRIPT, then for the planner's first step, reset twice."""
    lines = []
    for _ in range(2):
        result = episode.reset()
        lines += [result.observation, *result.admissible_commands]
        for action in SCRIPT:
            result = episode.step(action)
            lines += [result.observation, str(result.won), *result.admissible_commands]
    return lines


def gone(pid: int) -> bool:
    """No process, not even a zombie, has this pid."""
    return not Path(f"/proc/{pid}").exists()


def test_workers_print_the_same_text_as_this_process(games: list[AlfworldGame]) -> None:
    local = []
    for game in games:
        with AlfworldEpisode(game, max_episode_steps=None) as episode:
            local.append(transcript(episode))
    pool = EngineWorkers(2)
    try:

        def remote(game: AlfworldGame) -> list[str]:
            with pool.episode(game, max_episode_steps=None) as episode:
                return transcript(episode)

        with ThreadPoolExecutor(max_workers=3) as threads:
            played = list(threads.map(remote, games))
        pids = pool.pids()
    finally:
        pool.close()
    assert played == local
    assert len(pids) == 2, "three concurrent episodes on a pool of two start two workers"
    assert all(gone(pid) for pid in pids)


def test_an_episode_keeps_its_worker_and_its_engine_cpu_and_waits_are_counted(games: list[AlfworldGame]) -> None:
    pool = EngineWorkers(1)
    try:
        with pool.episode(games[0], max_episode_steps=3) as episode:
            episode.reset()
            assert not episode.step("look").done
            alone = episode.wait_seconds
            (worker,) = pool._workers
            with worker._lock:  # another episode's request in flight on the same worker
                stepping = threading.Thread(target=episode.step, args=("look",))
                stepping.start()
                time.sleep(HELD_S)
            stepping.join()
            assert alone < HELD_S <= episode.wait_seconds - alone < episode.env_seconds
            assert episode.step("look").done
            with pytest.raises(RuntimeError, match="after the episode is done"):
                episode.step("look")
            assert episode.cpu_seconds > 0 and episode.env_seconds >= episode.cpu_seconds * 0.5
        assert len(pool.pids()) == 1
    finally:
        pool.close()


def test_a_killed_worker_is_named_in_one_sentence_and_reaped(games: list[AlfworldGame]) -> None:
    pool = EngineWorkers(2)
    try:
        with pool.episode(games[0]) as doomed, pool.episode(games[1]) as survivor:
            doomed.reset()
            survivor.reset()
            (victim, other) = pool.pids()
            os.kill(victim, signal.SIGKILL)
            with pytest.raises(EngineWorkerError) as raised:
                doomed.step("look")
            assert survivor.step("look").observation
        message = str(raised.value)
        assert f"worker 0 (pid {victim}) was killed by signal 9 while playing {games[0].game_id}" in message
        assert "not recorded" in message and message.count(". ") == 0
        assert gone(victim), "the dead worker was reaped"
    finally:
        pool.close()
    assert gone(other)


def test_a_worker_left_open_ends_when_its_parent_hangs_up(games: list[AlfworldGame]) -> None:
    pool = EngineWorkers(1)
    episode = pool.episode(games[0])
    episode.reset()
    (pid,) = pool.pids()
    pool.close()  # the episode is still open: closing the pool must not wait for it
    assert gone(pid)
    with pytest.raises(EngineWorkerError, match="was stopped as the run ended"):
        episode.step("look")


def test_workers_started_ahead_serve_the_episodes_and_a_loading_one_is_stopped_at_once(
    games: list[AlfworldGame],
) -> None:
    pool = EngineWorkers(2)
    try:
        pool.start(5)
        started = pool.pids()
        assert len(started) == 2, "start() never goes past the pool's size"
        with pool.episode(games[0]) as first, pool.episode(games[1]) as second:
            first.reset()
            second.reset()
            assert pool.pids() == started, "the episodes ran on the workers started ahead"
    finally:
        pool.close()
    assert all(gone(pid) for pid in started)

    loading = EngineWorkers(2)
    loading.start(2)
    workers = list(loading._workers)
    loading.close()  # as a run refused right after warm_up: nothing asked yet, so nothing to wait for
    assert [worker.process.returncode for worker in workers] == [-signal.SIGKILL] * 2
