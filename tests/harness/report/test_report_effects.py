"""report.md's effects table and effects.json: paired over the tasks runs share (as a sweep's jobs, one condition
each), the control's absence said in a sentence, and no stale effects.json left behind."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from harness.metrics.effects import EFFECTS_FILE, Effects
from harness.records import Manifest, TrialLog, TrialRecord, write_manifest
from harness.report import write_report
from tests.harness.factories import make_record

TASKS = [f"pick_and_place_simple-Mug-None-Desk-{i}/trial_T1" for i in range(10)]
SAME = "Take the Mug from desk 1 and put it in the drawer."
OTHERS = ["Open cabinet 2 first, the mug was there.", "Search the countertop, then the shelf, then the desk."]


def _run(path: Path, records: list[TrialRecord]) -> Path:
    log = TrialLog(path)
    for record in records:
        log.append(record)
    return path


def control_job(tmp_path: Path) -> Path:
    """self_diagnosis never solves and repeats its reflection on every task."""
    return _run(tmp_path / "job0", [make_record(t, SAME, task=task) for task in TASKS for t in range(3)])


def condition_job(tmp_path: Path, tasks: list[str]) -> Path:
    """programmatic solves every task on its third trial, with two different reflections before."""
    records = []
    for task in tasks:
        records += [make_record(t, OTHERS[t], task=task, condition="programmatic") for t in range(2)]
        records.append(make_record(2, None, True, task=task, condition="programmatic"))
    return _run(tmp_path / "job1", records)


def test_a_sweep_of_one_condition_per_job_is_paired_over_its_shared_tasks(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    # The condition's job played two tasks the control did not: dropped, and counted.
    extra = [f"pick_and_place_simple-Cup-None-Shelf-{i}/trial_T1" for i in range(2)]
    jobs = [control_job(tmp_path), condition_job(tmp_path, TASKS + extra)]
    text = write_report(jobs, out, plots=False).read_text()
    assert "## Effects (paired over tasks, against self_diagnosis)" in text
    effects = Effects.model_validate_json((out / EFFECTS_FILE).read_text())
    rows = {row.measure: row for row in effects.rows}
    # No identity labels in these records: no on-task row; none solved under both: no first solving trial.
    assert set(rows) == {"solved", "trials_to_win", "rrr", "rrr_matched"}
    solved = rows["solved"]
    assert (solved.n, solved.dropped, solved.discordant, solved.difference) == (10, 2, (10, 0), 1.0)
    assert solved.significant and solved.p == 2 / 2**10
    assert (rows["rrr"].control_mean, rows["rrr"].condition_mean) == (1.0, 0.0)
    line = next(line for line in text.splitlines() if line.startswith("| solved (share of chains won) | programmatic |"))
    # Every difference is +1: the exact bound of 10 tasks alike (1 - 2 (1 - 0.05 ** (1 / 10))); solved is the
    # design's primary measure (the default), Holm over its one condition.
    assert "| 10 (2) | 0.00 | 1.00 | +1.00 | 0.48 to 1.00 | McNemar exact (10 gained, 0 lost) | 0.00195 | **0.00195** |" in line
    assert "Primary measure: solved (share of chains won) (the design's metrics.primary_measure)" in text
    # The secondary measures share one family: RRR's p is adjusted over the three secondary rows.
    secondary = [rows[m].p for m in ("trials_to_win", "rrr", "rrr_matched")]
    assert rows["rrr"].p_holm == min(1.0, 3 * min(secondary)) or rows["rrr"].p_holm >= rows["rrr"].p


def test_without_the_control_the_section_says_why_and_no_effects_json_stays(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / EFFECTS_FILE).write_text(json.dumps({"stale": True}))
    text = write_report([condition_job(tmp_path, TASKS)], out, plots=False).read_text()
    assert "No condition named self_diagnosis: nothing to compare against." in text
    assert not (out / EFFECTS_FILE).exists()


def test_runs_sharing_no_task_have_nothing_to_pair(tmp_path: Path) -> None:
    elsewhere = condition_job(tmp_path, ["pick_and_place_simple-Cup-None-Shelf-1/trial_T1"])
    text = write_report([control_job(tmp_path), elsewhere], tmp_path / "out", plots=False).read_text()
    assert "No condition shares a task with self_diagnosis: nothing to pair." in text


def test_rrr_is_measured_at_the_runs_similarity_threshold(tmp_path: Path) -> None:
    # SAME against itself is 1.0; OTHERS against each other is far below 0.85 but above 0.1.
    control, condition = control_job(tmp_path), condition_job(tmp_path, TASKS)
    for job in (control, condition):
        write_manifest(job, manifest_with_threshold(0.1))
    write_report([control, condition], tmp_path / "out", plots=False)
    effects = Effects.model_validate_json((tmp_path / "out" / EFFECTS_FILE).read_text())
    rrr = next(row for row in effects.rows if row.measure == "rrr")
    assert (effects.similarity_threshold, rrr.condition_mean) == (0.1, 1.0)
    write_manifest(condition, manifest_with_threshold(0.85))
    text = write_report([control, condition], tmp_path / "mixed", plots=False).read_text()
    assert "The runs measure RRR at different similarity thresholds (0.1, 0.85): no single effect." in text


def manifest_with_threshold(threshold: float) -> Manifest:
    return Manifest(
        config={"env": {"name": "alfworld"}, "metrics": {"similarity_threshold": threshold}},
        package_versions={},
        git_commit=None,
        data_hashes={},
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        status="failed",
    )
