"""A run directory inside another run's (a directory above it holds manifest.json or trials.jsonl) is refused in
one sentence naming that run, before Hydra creates anything, even while that run holds its lock; a sweep's jobs
under the sweep directory (which holds multirun.yaml) are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.records import MANIFEST_FILE, TRIALS_FILE
from harness.run.lock import RunLock
from harness.records.run_dir import check_not_inside_run
from tests.harness.cli.test_bad_input import assert_one_sentence, files_under
from tests.runner import run_cli
from tests.small_run import SMALL_RUN


def assert_refused(args: tuple[str, ...], enclosing: Path, watched: Path, multirun: bool = False) -> None:
    before = files_under(watched)
    result = run_cli(*SMALL_RUN, *args, multirun=multirun)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert_one_sentence(result.stderr, [f"is inside the run directory {enclosing} (it holds {MANIFEST_FILE})"])
    assert files_under(watched) == before


@pytest.mark.parametrize("below", ["sub", "a/b"])
def test_a_run_inside_a_finished_run_is_refused(finished: Path, below: str) -> None:
    assert_refused((f"hydra.run.dir={finished / below}",), finished, finished)


def test_a_run_inside_a_locked_run_is_refused(copy: Path) -> None:
    lock = RunLock.acquire(copy)
    try:
        assert_refused((f"hydra.run.dir={copy / 'sub'}",), copy, copy)
    finally:
        lock.release()


def test_a_symbolic_link_into_a_run_is_inside_it(finished: Path, tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(finished)
    assert_refused((f"hydra.run.dir={tmp_path / 'link' / 'sub'}",), finished, finished)


def test_a_sweep_inside_a_run_is_refused(finished: Path) -> None:
    assert_refused((f"hydra.sweep.dir={finished / 'sweep'}",), finished, finished, multirun=True)


def test_records_without_a_manifest_make_a_run_too(tmp_path: Path) -> None:
    (tmp_path / "crashed").mkdir()
    (tmp_path / "crashed" / TRIALS_FILE).write_text("")
    with pytest.raises(ConfigError, match=f"inside the run directory {tmp_path / 'crashed'} .it holds {TRIALS_FILE}"):
        check_not_inside_run(tmp_path / "crashed" / "x" / "y", "hydra.run.dir=...")


def test_a_sweep_s_job_and_a_run_itself_are_not_inside_a_run(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    (sweep / "0").mkdir(parents=True)
    (sweep / "multirun.yaml").write_text("{}")
    (sweep / "0" / MANIFEST_FILE).write_text("{}")
    check_not_inside_run(sweep / "0", "its directory")  # resumed: the job's own manifest is not above it
    check_not_inside_run(sweep / "1", "its directory")


@pytest.mark.parametrize("content", ['{"name": "a web app", "start_url": "/"}', "not json", ""])
def test_a_manifest_json_that_is_no_runs_above_a_run_refuses_nothing(tmp_path: Path, content: str) -> None:
    """A project may keep a manifest.json of its own (a web app's, a package's) in a folder above every run."""
    (tmp_path / MANIFEST_FILE).write_text(content)
    check_not_inside_run(tmp_path / "results" / "runs" / "r", "hydra.run.dir=...")
