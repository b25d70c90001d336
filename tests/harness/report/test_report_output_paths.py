"""`reflexion-report` replaces what lies at an output's path: a symlink a user left in the run directory is
never followed (the file it points to is unchanged, nothing is created where a dangling one points), and a FIFO is
never opened (the report finishes instead of waiting for a reader)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness.records import Manifest, TrialLog, write_manifest
from tests.harness.factories import make_record
from tests.in_process import run_module

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
# report.md, effects.json, a plot and a table in each format: one of each writer that followed a link (report.html
# was written through a temporary file already).
OUTPUTS = ["report.md", "effects.json", "rrr_distribution.png", "conditions.csv", "conditions.tex"]
TIMEOUT_S = 60  # the report takes seconds; a writer blocked on a FIFO fails here instead of hanging the suite


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """Two conditions on one task, so the report has effects to write beside report.md."""
    run = tmp_path / "run"
    log = TrialLog(run)
    for trial in range(2):
        log.append(make_record(trial, "Take the mug from desk 1.", task=MUG))
        log.append(make_record(trial, None, task=MUG, condition="no_memory"))
    manifest = Manifest(
        config={
            "env": {"name": "alfworld"},
            "conditions": [{"name": "self_diagnosis"}, {"name": "no_memory"}],
            "experiment": {"trials": 2},
        },
        package_versions={},
        git_commit=None,
        data_hashes={},
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        status="failed",
    )
    write_manifest(run, manifest)
    return run


def report(run: Path, plots: bool = False) -> None:
    """The report in every format; its PNGs only when the output under test is one (drawing them takes seconds)."""
    plots_flag = [] if plots else ["--no-plots"]
    result = run_module("harness.cli.report", str(run), "--format", "md,html,csv,latex", *plots_flag)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", OUTPUTS)
def test_a_symlink_at_an_output_is_replaced_and_its_target_left_alone(run_dir: Path, tmp_path: Path, name: str) -> None:
    outside = tmp_path / "V"
    outside.write_text("keep\n")
    (run_dir / name).symlink_to(outside)
    report(run_dir, plots=name.endswith(".png"))
    assert outside.read_text() == "keep\n"
    assert not (run_dir / name).is_symlink() and (run_dir / name).is_file()


def test_a_dangling_symlink_at_report_md_creates_nothing_outside(run_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run_dir / "report.md").symlink_to(elsewhere / "report.md")
    report(run_dir)
    assert list(elsewhere.iterdir()) == []
    assert (run_dir / "report.md").is_file()


@pytest.mark.parametrize("name", ["report.md", "rrr_distribution.png", "conditions.csv"])
def test_a_fifo_at_an_output_is_replaced_and_the_report_finishes(run_dir: Path, name: str) -> None:
    os.mkfifo(run_dir / name)
    report(run_dir, plots=name.endswith(".png"))
    assert (run_dir / name).is_file()
