"""A run replaces what lies at an output's path as it writes metrics.json, summary.md and report.md at its end: a
symlink a user left in the run directory is never followed, and a FIFO never opened while the run holds its lock."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.runner import run_cli
from tests.small_run import SMALL_RUN

pytestmark = pytest.mark.slow

TIMEOUT_S = 120  # the small run's resumption takes seconds; one blocked on a FIFO fails here instead of hanging



def resume(run_dir: Path) -> None:
    """The same command again: a finished run writes its metrics, summary and report once more."""
    result = run_cli(*SMALL_RUN, f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", ["summary.md", "metrics.json", "report.md"])
def test_a_symlink_at_an_output_is_replaced_and_its_target_left_alone(copy: Path, tmp_path: Path, name: str) -> None:
    outside = tmp_path / "V"
    outside.write_text("keep\n")
    (copy / name).unlink()
    (copy / name).symlink_to(outside)
    resume(copy)
    assert outside.read_text() == "keep\n"
    assert not (copy / name).is_symlink() and (copy / name).is_file()


def test_a_dangling_symlink_at_summary_md_creates_nothing_outside(copy: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (copy / "summary.md").unlink()
    (copy / "summary.md").symlink_to(elsewhere / "summary.md")
    resume(copy)
    assert list(elsewhere.iterdir()) == []
    assert (copy / "summary.md").is_file()


@pytest.mark.parametrize("name", ["summary.md", "report.md"])
def test_a_fifo_at_an_output_is_replaced_and_the_run_finishes(copy: Path, name: str) -> None:
    (copy / name).unlink()
    os.mkfifo(copy / name)
    resume(copy)
    assert (copy / name).is_file()


def test_a_run_removes_the_temporaries_a_writer_killed_before_its_rename_left_in_its_directory(copy: Path) -> None:
    """A temporary of a file the run does not write again (a table of an earlier report) is removed as the run
    starts; an aged one of report.html as report.html is written; one a live writer holds stays."""
    abandoned = [copy / ".conditions.csv.0123456789abcdef.tmp", copy / ".report.html.fedcba9876543210.tmp"]
    held = copy / ".summary.md.00112233445566ff.tmp"
    for temporary in (*abandoned, held):
        temporary.write_text("half written\n")
        os.utime(temporary, (1, 1))
    with open(held, "rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        resume(copy)
        assert held.exists()
    assert not [path for path in abandoned if path.exists()]
