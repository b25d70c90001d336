"""Corruption is detected and named, never silently kept: the cache, trials.jsonl, the manifest, a game file."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.records import MANIFEST_FILE, TRIALS_FILE, read_manifest, read_trials, records_without_timing
from tests.runner import REPLAY_CACHE, ROOT, run_cli
from tests.small_run import GAME, SMALL_RUN, snapshot

pytestmark = pytest.mark.slow

GAMES_DIR = Path("json_2.1.1") / "valid_unseen"
GAME_FILE = GAMES_DIR / GAME / "game.tw-pddl"


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def with_cache(cache: Path) -> list[str]:
    return [arg for arg in SMALL_RUN if not arg.startswith("llm.cache.path=")] + [f"llm.cache.path={cache}"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small run, played to the end once for the module; tests work on copies."""
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    result = run_cli(*SMALL_RUN, f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr
    return run_dir


@pytest.fixture
def copy(finished: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(finished, tmp_path / "run"))


def tamper_checksum(line: str) -> str:
    entry = json.loads(line)
    entry["response"]["text"] += " (edited)"
    return json.dumps(entry)


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [(tamper_checksum, "response checksum mismatch"), (lambda line: line[:40], "invalid JSON")],
    ids=["checksum mismatch", "bad JSON"],
)
def test_a_corrupt_cache_entry_is_named_with_its_file_and_line(
    tmp_path: Path, tamper: Callable[[str], str], reason: str
) -> None:
    cache = tmp_path / "llm_cache.jsonl"
    lines = REPLAY_CACHE.read_text().splitlines()
    lines[4] = tamper(lines[4])
    cache.write_text("\n".join(lines) + "\n")
    kept = cache.read_bytes()
    result = run_cli(*with_cache(cache), f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    error = one_error_line(result.stderr)
    assert f"cache file {cache} line 5 " in error and reason in error
    assert not (tmp_path / "run").exists()
    assert cache.read_bytes() == kept


def test_a_torn_last_trial_is_dropped_with_a_warning_and_played_again(finished: Path, copy: Path) -> None:
    trials = copy / TRIALS_FILE
    first_line, last_line = trials.read_bytes().splitlines(keepends=True)
    trials.write_bytes(first_line + last_line[: len(last_line) // 2])  # what a kill mid-write leaves
    result = run_cli(*SMALL_RUN, f"hydra.run.dir={copy}")
    assert result.returncode == 0, result.stderr
    assert "torn last line" in result.stderr
    assert trials.read_bytes().startswith(first_line)
    assert records_without_timing(read_trials(copy)) == records_without_timing(read_trials(finished))
    manifest = read_manifest(copy)
    assert manifest is not None and manifest.status == "finished" and manifest.resumed_from == 1


def test_a_changed_config_is_refused_unless_allowed_and_then_recorded(copy: Path) -> None:
    before = snapshot(copy)
    refused = run_cli(*SMALL_RUN, "env.max_steps=12", f"hydra.run.dir={copy}")
    assert refused.returncode == 2
    error = one_error_line(refused.stderr)
    assert "started with env.max_steps=30, not 12; use a new" in error and "+resume.allow_config_change=true" in error
    assert snapshot(copy) == before

    allowed = run_cli(*SMALL_RUN, "env.max_steps=12", "+resume.allow_config_change=true", f"hydra.run.dir={copy}")
    assert allowed.returncode == 0, allowed.stderr
    change = {"setting": "env.max_steps", "was": 30, "now": 12}
    manifest = read_manifest(copy)
    assert manifest is not None and manifest.status == "finished"
    assert manifest.config["resume"] == {"allow_config_change": True, "adopt_records": False, "changes": [change]}
    assert (copy / TRIALS_FILE).read_bytes() == before[TRIALS_FILE]

    # Later resumptions under the new setting need no flag, and keep the record of the change.
    again = run_cli(*SMALL_RUN, "env.max_steps=12", f"hydra.run.dir={copy}")
    assert again.returncode == 0, again.stderr
    manifest = read_manifest(copy)
    assert manifest is not None
    assert manifest.config["resume"] == {"allow_config_change": False, "adopt_records": False, "changes": [change]}


def test_a_manifest_that_is_not_json_is_named(copy: Path) -> None:
    (copy / MANIFEST_FILE).write_text('{"schema_version": 3, "config": {')
    before = snapshot(copy)
    result = run_cli(*SMALL_RUN, f"hydra.run.dir={copy}")
    assert result.returncode == 2
    error = one_error_line(result.stderr)
    assert f"{copy / MANIFEST_FILE} is not a readable manifest (Invalid JSON" in error
    assert snapshot(copy) == before


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:3000])


def garble(path: Path) -> None:
    path.write_bytes(b"\x00\xff garbage \xfe" * 100)


def make_unreadable(path: Path) -> None:
    # Root reads any file whatever its mode, so a directory in its place stands for an unreadable file.
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize("damage", [truncate, garble, make_unreadable], ids=["truncated", "garbage", "unreadable"])
def test_a_damaged_game_file_is_named_before_any_trial(tmp_path: Path, damage: Callable[[Path], None]) -> None:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "alfworld" / GAMES_DIR / GAME.split("/")[0], data / GAMES_DIR / GAME.split("/")[0])
    damage(data / GAME_FILE)
    result = run_cli(*SMALL_RUN, f"env.data_dir={data}", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    error = one_error_line(result.stderr)
    assert f"ALFWorld game file {data / GAME_FILE} cannot be read (" in error
    assert not (tmp_path / "run").exists()

