"""`reflexion-report`'s --out and its printed lines: another run's directory is never written over, and a
path is printed as text."""

from __future__ import annotations

import fcntl
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness.records import MANIFEST_FILE, TRIALS_FILE, Manifest, TrialLog, write_manifest
from harness.report import REPORT_FILE
from harness.cli.report import main
from tests.harness.control_characters import HOSTILE, acting
from tests.harness.factories import make_record
from tests.harness.cli.test_bad_input import assert_one_sentence
from tests.in_process import run_module
from tests.small_run import snapshot

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"


def _run(run_dir: Path, *, manifest: bool = True, records: bool = True) -> Path:
    """A stopped two-trial run of self_diagnosis on one game: its records, its manifest, or both."""
    run_dir.mkdir(parents=True)
    if records:
        log = TrialLog(run_dir)
        log.append(make_record(0, "Take the Mug from desk 1.", task=MUG))
        log.append(make_record(1, None, True, task=MUG))
    if manifest:
        write_manifest(
            run_dir,
            Manifest(
                config={
                    "env": {"name": "alfworld"},
                    "conditions": [{"name": "self_diagnosis"}],
                    "experiment": {"trials": 2},
                },
                package_versions={},
                git_commit=None,
                data_hashes={},
                started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                status="running",
            ),
        )
    return run_dir


@pytest.mark.parametrize(
    ("manifest", "records", "held"),
    [(True, True, MANIFEST_FILE), (False, True, TRIALS_FILE), (True, False, MANIFEST_FILE)],
    ids=["a run", "records without a manifest", "a manifest before any record"],
)
def test_an_out_holding_another_run_is_refused_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], manifest: bool, records: bool, held: str
) -> None:
    """h13: `reflexion-report runs/five --out runs/base` replaced base's report.md, PNGs and effects.json
    with five's without a word, even while base's run was still recording."""
    base = _run(tmp_path / "base", manifest=manifest, records=records)
    if records:
        main([str(base)])
    (base / "run.lock").write_text("4242\n")  # a run still recording: its lock is no reason to write either
    before = snapshot(base)
    five = _run(tmp_path / "five")
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main([str(five), "--out", str(base)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"error: --out {base} is another run's directory (it holds {held}), whose report this would replace; give "
        "an empty or new folder, a folder of reports, or the run's own directory.\n"
    )
    assert snapshot(base) == before
    assert sorted(p.name for p in five.iterdir()) == [MANIFEST_FILE, TRIALS_FILE]


def test_an_out_that_is_the_runs_own_directory_a_new_folder_or_a_folder_of_reports_is_written(tmp_path: Path) -> None:
    five, six = _run(tmp_path / "five"), _run(tmp_path / "six")
    main([str(five), "--out", str(five), "--no-plots"])
    main([str(five), str(six), "--out", str(six), "--no-plots"])
    main([str(five), str(six), "--out", str(tmp_path / "reports"), "--no-plots"])
    main([str(six), "--out", str(tmp_path / "reports"), "--no-plots"])
    for folder in (five, six, tmp_path / "reports"):
        assert (folder / REPORT_FILE).is_file()


def test_the_printed_paths_show_their_control_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run(tmp_path / f"{HOSTILE}\nwrote elsewhere")
    main([str(run), "--no-plots"])
    out = capsys.readouterr().out
    assert out.startswith("wrote ") and out.count("\n") == 1 and acting(out) == [], out
    assert "e␛[31mx<U+202E>y␊wrote elsewhere" in out
    empty = tmp_path / f"empty{HOSTILE}"
    empty.mkdir()
    with pytest.raises(SystemExit):
        main([str(empty)])
    err = capsys.readouterr().err
    assert "is not a run directory" in err and err.count("\n") == 1 and acting(err) == [], err


def test_a_symlink_loop_as_a_reports_input_or_out_is_one_sentence_not_a_traceback(tmp_path: Path) -> None:
    run = _run(tmp_path / "run")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    loop = tmp_path / "a"
    cases = {
        (str(loop),): f"{loop} is a loop of symbolic links",
        (str(loop / "run"),): f"{loop / 'run'} goes through {loop}, which is a loop of symbolic links",
        (str(run), "--out", str(loop / "out")): f"--out={loop / 'out'} goes through {loop}, which is a loop",
        (str(loop), "--index"): f"{loop} is a loop of symbolic links",
    }
    for argv, needle in cases.items():
        result = run_module("harness.cli.report", *argv)
        assert result.returncode == 2, result.stderr
        assert_one_sentence(result.stderr, [needle])


def test_a_new_report_leaves_no_table_of_an_earlier_report_beside_it(tmp_path: Path) -> None:
    """The tables of `--format md,csv,latex` are written again by a later report into the same folder (md only),
    never left with the earlier report's figures beside the new report.md."""
    earlier, later = _run(tmp_path / "earlier"), _run(tmp_path / "later")
    salt = "pick_and_place_simple-SaltShaker-None-Shelf-1/t"
    TrialLog(later).append(make_record(0, "Look in the drawer first.", task=salt))
    out = tmp_path / "reports"
    main([str(earlier), "--out", str(out), "--format", "md,csv,latex", "--no-plots"])
    main([str(later), "--out", str(out), "--no-plots"])
    main([str(later), "--out", str(tmp_path / "fresh"), "--format", "md,csv,latex", "--no-plots"])
    tables = sorted(p.name for p in (tmp_path / "fresh").iterdir() if p.suffix in (".csv", ".tex"))
    assert len(tables) == 8
    assert {name: (out / name).read_text() for name in tables} == {
        name: (tmp_path / "fresh" / name).read_text() for name in tables
    }


def test_a_report_into_a_folder_another_process_is_writing_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two reports into one --out at once left report.md of one and report.html of the other: the second is refused
    while the first holds the folder, as a report into a directory a run is writing is."""
    first, second, out = _run(tmp_path / "first"), _run(tmp_path / "second"), tmp_path / "out"
    out.mkdir()
    for holder in (out, first):
        descriptor = os.open(holder, os.O_RDONLY | os.O_DIRECTORY)  # what the other report (or a run) holds
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            before = snapshot(holder)
            capsys.readouterr()
            with pytest.raises(SystemExit) as exit_:
                main([str(second if holder == out else first), "--out", str(holder), "--html"])
            assert exit_.value.code == 2
            assert capsys.readouterr().err == (
                f"error: {holder} is being written by another process (a report or a run), so this report would mix "
                "its files with that one's; nothing was written, run this again once it ends.\n"
            )
            assert snapshot(holder) == before
        finally:
            os.close(descriptor)
    main([str(second), "--out", str(out), "--html", "--no-plots"])
    assert {REPORT_FILE, "report.html"} <= {p.name for p in out.iterdir()}
