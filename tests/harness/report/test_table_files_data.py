"""Text from records in the CSV and LaTeX tables is data: no raw control character, no live spreadsheet formula,
and the numbers beside it unchanged."""

from __future__ import annotations

import csv
import unicodedata
from datetime import datetime, timezone
from pathlib import Path

from harness.records import Manifest, TrialLog, write_manifest
from harness.report._report import write_formats
from harness.report.data_tables import DataTable
from harness.report.table_files import write_csv
from tests.harness.factories import make_record

HOSTILE = '=HYPERLINK("http://x")\x1b[31m\u202e\x00'
TASK = f"pick_and_place_simple-Mug-None-Desk-308/{HOSTILE}"  # its folder must name the target object


def raw_controls(text: str) -> set[str]:
    """The control and format characters (ESC, NUL, the bidi overrides...) in `text`, line ends aside."""
    return {c for c in text if unicodedata.category(c) in ("Cc", "Cf") and c not in "\r\n"}


def _hostile_run(run_dir: Path) -> Path:
    """Two trials of one task whose task id and actor model are a formula followed by control characters."""
    log = TrialLog(run_dir)
    for trial in range(2):
        log.append(make_record(trial, "Look in the drawer.", task=TASK).model_copy(update={"actor_model": HOSTILE}))
    manifest = Manifest(
        config={"env": {"name": "alfworld"}, "conditions": [{"name": "self_diagnosis"}], "experiment": {"trials": 2}},
        package_versions={},
        git_commit=None,
        data_hashes={},
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        status="failed",
    )
    write_manifest(run_dir, manifest)
    return run_dir


def test_a_formula_and_control_characters_in_records_are_data_in_csv_and_latex(tmp_path: Path) -> None:
    run = _hostile_run(tmp_path / "run")
    written = write_formats([run], run, ("csv", "latex"))
    for path in written:
        assert raw_controls(path.read_text(encoding="utf-8")) == set(), path.name
    with (run / "tasks.csv").open(newline="", encoding="utf-8") as handle:
        (task,) = csv.DictReader(handle)
    assert task["task"] == 'pick_and_place_simple-Mug-None-Desk-308/=HYPERLINK("http://x")␛[31m<U+202E>␀'
    assert (task["solved"], float(task["rrr"]), int(task["trials"])) == ("False", 1.0, 2)
    with (run / "conditions.csv").open(newline="", encoding="utf-8") as handle:
        (condition,) = csv.DictReader(handle)
    assert condition["actor_model"] == "'=HYPERLINK(\"http://x\")␛[31m<U+202E>␀"
    assert (int(condition["tasks"]), float(condition["solved_rate"])) == (1, 0.0)
    tex = (run / "tasks.tex").read_text(encoding="utf-8")
    # pdfLaTeX has no glyph for a control picture: code points, their angle brackets escaped as any < or >.
    assert r"\textless{}U+001B\textgreater{}[31m\textless{}U+202E\textgreater{}\textless{}U+0000\textgreater{}" in tex
    assert " & 2 & 2 & 1 & yes & no & -- & 0 & 0 & " in tex


def test_only_text_cells_are_quoted_a_negative_number_stays_a_number(tmp_path: Path) -> None:
    table = DataTable(
        name="t",
        columns=["label", "difference", "note"],
        rows=[{"label": "-x", "difference": -0.3, "note": "@sum"}, {"label": "+1", "difference": -2, "note": "ok"}],
    )
    with write_csv(table, tmp_path).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows == [["label", "difference", "note"], ["'-x", "-0.3", "'@sum"], ["'+1", "-2", "ok"]]
