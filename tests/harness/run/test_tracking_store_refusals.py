"""A sqlite tracking store that cannot keep the run is refused before any trial, in one sentence with exit 2: an
existing file that is not an SQLite database (MLflow found out only when logging, after the trials) and an
in-memory database (the tracking thrown away when the run ends)."""

from __future__ import annotations

import importlib.util
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.run.preflight import check_tracking
from harness.run.tracking_settings import TrackingSettings
from tests.harness.cli.test_bad_input import assert_one_sentence, files_under
from tests.runner import run_cli
from tests.small_run import SMALL_RUN, snapshot

IN_MEMORY = ("sqlite:///:memory:", "sqlite://", "sqlite:///file::memory:?cache=shared", "sqlite:///file:x?mode=memory")


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notdb.txt"
    text.write_text("notes, not a database\n")
    refusal = f"^tracking.tracking_uri=sqlite:///{text} names a file that is not an SQLite database"
    with pytest.raises(ConfigError, match=refusal):
        check_tracking(TrackingSettings(backend="mlflow", tracking_uri=f"sqlite:///{text}"))


def test_an_empty_file_and_a_database_are_accepted(tmp_path: Path) -> None:
    (tmp_path / "empty.db").write_bytes(b"")
    sqlite3.connect(tmp_path / "real.db").execute("create table t (x)").connection.close()
    for name in ("empty.db", "real.db"):
        check_tracking(TrackingSettings(backend="mlflow", tracking_uri=f"sqlite:///{tmp_path / name}"))


@pytest.mark.parametrize("uri", IN_MEMORY)
def test_an_in_memory_store_is_refused(uri: str) -> None:
    with pytest.raises(ValueError, match="in-memory database, which keeps nothing"):
        TrackingSettings(backend="mlflow", tracking_uri=uri)


@pytest.mark.skipif(importlib.util.find_spec("mlflow") is None, reason="needs mlflow (pip install -e .[tracking])")
@pytest.mark.parametrize(
    ("uri", "needle"),
    [
        ("sqlite:///{tmp}/notdb.txt", "tracking.tracking_uri=sqlite:///{tmp}/notdb.txt names a file that is not an"),
        ("sqlite:///:memory:", "tracking.tracking_uri = 'sqlite:///:memory:' is invalid: it names an in-memory"),
    ],
)
def test_the_command_line_refuses_it_before_any_trial(tmp_path: Path, uri: str, needle: str) -> None:
    (tmp_path / "notdb.txt").write_text("notes, not a database\n")
    before = files_under(tmp_path)
    run_dir = tmp_path / "run"
    result = run_cli(
        *SMALL_RUN, "tracking=mlflow", f"tracking.tracking_uri={uri.format(tmp=tmp_path)}", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert_one_sentence(result.stderr, [needle.format(tmp=tmp_path)])
    assert not run_dir.exists() and files_under(tmp_path) == before


@pytest.mark.skipif(importlib.util.find_spec("mlflow") is None, reason="needs mlflow (pip install -e .[tracking])")
@pytest.mark.parametrize(
    ("store", "held"),
    [("file:{other}", "holds manifest.json"), ("sqlite:///{other}/mlflow.db", "holds manifest.json"),
     ("file:{run}/mlruns", "is this run's own directory")],
    ids=["a file store that is another run's directory", "a database inside it", "a store inside the run's own"],
)
def test_a_tracking_store_in_a_run_directory_is_refused_and_writes_nothing_there(
    small_run: Path, copy_run: Callable[[Path], Path], tmp_path: Path, store: str, held: str
) -> None:
    other = copy_run(small_run)
    before = snapshot(other)
    run_dir = tmp_path / "new"
    uri = store.format(other=other, run=run_dir)
    result = run_cli(*SMALL_RUN, "tracking=mlflow", f"tracking.tracking_uri={uri}", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2, result.stderr
    directory = run_dir if "own" in held else other
    assert_one_sentence(
        result.stderr, [f"tracking.tracking_uri={uri} would write MLflow's store into the run directory {directory} "
                        f"(it {held})"]
    )
    assert snapshot(other) == before and not run_dir.exists()
