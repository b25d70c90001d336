"""Games translated ahead of their first reset: a reset reads what the prefetcher wrote, the prefetcher runs only on
idle CPU, and it never outlives the run that started it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envs.alfworld import list_games
from envs.alfworld_prefetch import TranslationPrefetch, translate_games
from harness.domains.alfworld.domain import AlfworldDomain

ROOT = Path(__file__).resolve().parents[2]

# A fresh process resets each game of argv[2:] with the translations folder argv[1] and prints how many
# translations it read from the folder and how many it wrote.
RESET = """
import json, sys
from pathlib import Path
from envs.alfworld import list_games, AlfworldEpisode
from envs.alfworld_memos import install_memos, keep_translations_in
keep_translations_in(Path(sys.argv[1]))
games = {game.game_id: game for game in list_games()}
for game_id in sys.argv[2:]:
    with AlfworldEpisode(games[game_id]) as episode:
        episode.reset()
persisted = install_memos()["persisted"]
print(json.dumps({"reads": persisted.reads, "writes": persisted.writes}))
"""


def _wait_for(condition, timeout_s: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_reset_reads_the_translation_made_ahead(tmp_path: Path) -> None:
    games = list_games()[:2]
    assert translate_games(tmp_path, [Path(game.game_file) for game in games]) == 2
    kept = {path: path.stat().st_mtime_ns for path in tmp_path.glob("*.pickle")}
    assert translate_games(tmp_path, [Path(game.game_file) for game in games]) == 0, "translated twice"
    assert {path: path.stat().st_mtime_ns for path in tmp_path.glob("*.pickle")} == kept, "a kept one was rewritten"
    run = subprocess.run([sys.executable, "-c", RESET, str(tmp_path), *(game.game_id for game in games)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {"reads": 2, "writes": 0}


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")
def test_the_prefetcher_runs_on_idle_cpu(tmp_path: Path) -> None:
    prefetch = TranslationPrefetch(tmp_path, [Path(game.game_file) for game in list_games()[:1]])
    try:
        assert _wait_for(lambda: os.sched_getscheduler(prefetch.process.pid) == os.SCHED_IDLE, timeout_s=30)
    finally:
        prefetch.close()
    assert prefetch.process.returncode is not None
    prefetch.close()


def test_the_prefetcher_waits_to_be_closed(tmp_path: Path) -> None:
    games = list_games()[:2]
    prefetch = TranslationPrefetch(tmp_path, [Path(game.game_file) for game in games], idle=False)
    try:
        assert _wait_for(lambda: len(list(tmp_path.glob("*.pickle"))) == 2), "the games were not translated"
        time.sleep(0.2)
        assert prefetch.process.poll() is None, "done, it exited: its CPU would leave the run's children uncounted"
    finally:
        prefetch.close()
    assert prefetch.process.returncode == -signal.SIGKILL


# A parent that starts a prefetcher on every game, prints its pid, and is killed before it can close it.
ORPHANING = """
import os, signal
from pathlib import Path
import sys
from envs.alfworld import list_games
from envs.alfworld_prefetch import TranslationPrefetch
prefetch = TranslationPrefetch(Path(sys.argv[1]), [Path(game.game_file) for game in list_games()], idle=False)
print(prefetch.process.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_the_prefetcher_ends_when_its_run_dies(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", ORPHANING, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == -signal.SIGKILL
    pid = int(run.stdout.split()[0])
    # An orphan is re-parented (to init or a subreaper, which reaps it): ended means gone or a zombie.
    assert _wait_for(lambda: not _running(pid), timeout_s=30), "the prefetcher outlived its run"
    assert len(list(tmp_path.glob("*.pickle"))) < len(list_games()), "it went on through every game"


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_domain_with_workers_prefetches_its_games_in_order(tmp_path: Path) -> None:
    games = list_games()[:3]
    for prefetch, expected in ((True, [str(game.game_file) for game in games]), (False, None)):
        domain = AlfworldDomain(games, max_steps=5, engine_workers=2, translation_cache=tmp_path, prefetch=prefetch)
        try:
            domain.warm_up(2)
            prefetcher = domain._prefetcher
            started = None if prefetcher is None else [str(a) for a in prefetcher.process.args[-len(games):]]
            assert started == expected
        finally:
            domain.close()
        assert prefetcher is None or prefetcher.process.returncode is not None, "close() left the prefetcher running"
