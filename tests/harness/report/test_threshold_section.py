"""The report's threshold curves: a plot beside report.md, tables of the same numbers, the set thresholds named."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from harness.metrics.run import run_metrics, write_metrics
from harness.metrics.thresholds import Thresholds
from harness.records import RunPlan, TrialLog, read_manifest, write_manifest
from harness.report import THRESHOLD_CURVES, write_report
from tests.harness.factories import make_record
from tests.harness.metrics.test_repeats import two_tasks_two_repeats
from tests.harness.metrics.test_thresholds import NEAR, SAME
from tests.harness.report.test_report import manifest_of

PLAN = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=3, repeats=2)


def game(name: str) -> str:
    """An ALFWorld task id whose target is a salt shaker, named `name`."""
    return f"pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_{name}"


def written_run(run_dir: Path, records: list, thresholds: Thresholds) -> Path:
    """A run directory holding `records` (their tasks as ALFWorld games), its manifest (PLAN's repeats and
    `thresholds`, as a run records them) and metrics.json at `thresholds`."""
    records = [r.model_copy(update={"task_id": game(r.task_id)}) for r in records]
    log = TrialLog(run_dir)
    for record in records:
        log.append(record)
    manifest = manifest_of("alfworld", ["self_diagnosis"], trials=3)
    manifest.config["experiment"]["repeats"] = PLAN.repeats
    manifest.config["metrics"] = thresholds.model_dump()
    write_manifest(run_dir, manifest)
    targets = {r.task_id: "SaltShaker" for r in records}
    write_metrics(run_dir, run_metrics(records, PLAN, targets, thresholds=thresholds))
    return run_dir


def a_run(run_dir: Path, thresholds: Thresholds) -> Path:
    return written_run(run_dir, two_tasks_two_repeats(), thresholds)


def test_the_report_draws_the_curves_and_names_the_thresholds(tmp_path: Path) -> None:
    run = a_run(tmp_path / "run", Thresholds(similarity_threshold=0.8, frozen_threshold=0.4))
    report = write_report([run], tmp_path / "out").read_text()
    with Image.open(tmp_path / "out" / THRESHOLD_CURVES) as image:
        assert image.format == "PNG" and image.width > 600
    section = report.split("## Threshold curves", 1)[1].split("\n## ", 1)[0]
    assert f"]({THRESHOLD_CURVES})" in section
    assert "| condition | 0.7 | 0.75 | 0.8 (set) | 0.85 | 0.9 | 0.95 |" in section
    assert "0.4 (set)" in section and "ratio >= 0.8" in section and "RRR >= 0.4" in section
    # At the set thresholds the curve is the condition's frozen share: a and b each frozen by the mean RRR of their
    # chains (0.5 and 1.0), 2 of the 2 tasks with an RRR; not the share of chains frozen (0.50).
    at_set_similarity = next(line for line in section.splitlines() if line.startswith("| self_diagnosis |"))
    assert at_set_similarity.split(" | ")[3] == "1.00 (2/2)"
    assert "frozen (RRR >= 0.4)" in report
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Threshold curves" in html and 'alt="Frozen share as each threshold moves"' in html


def test_a_run_without_recorded_thresholds_is_reported_at_the_defaults(tmp_path: Path) -> None:
    run = a_run(tmp_path / "run", Thresholds())
    manifest = read_manifest(run)
    del manifest.config["metrics"]
    write_manifest(run, manifest)
    metrics = (run / "metrics.json").read_text()
    start = metrics.index('  "thresholds"')
    end = metrics.index("},", start) + 3
    (run / "metrics.json").write_text(metrics[:start] + metrics[end:])
    report = write_report([run], tmp_path / "out", html=False, plots=False).read_text()
    assert "frozen (RRR >= 0.5)" in report and "0.85 (set)" in report


def test_the_page_shows_each_repeat_as_its_own_chain(tmp_path: Path) -> None:
    run = a_run(tmp_path / "run", Thresholds())
    write_report([run], tmp_path / "out", plots=False)
    html = (tmp_path / "out" / "report.html").read_text()
    for task in (game("a"), game("b")):
        for repeat in (0, 1):
            assert f'data-task="{task}" data-cond="self_diagnosis, repeat {repeat}"' in html


def near_run(run_dir: Path, thresholds: Thresholds) -> Path:
    records = [make_record(t, r, task="near") for t, r in enumerate([SAME, NEAR])]
    return written_run(run_dir, records, thresholds)


def test_the_page_marks_repeats_at_the_runs_similarity_threshold(tmp_path: Path) -> None:
    marked = []
    for name, thresholds in (("default", Thresholds()), ("low", Thresholds(similarity_threshold=0.7))):
        write_report([near_run(tmp_path / name, thresholds)], tmp_path / f"out-{name}", plots=False)
        page = (tmp_path / f"out-{name}" / "report.html").read_text()
        marked.append(page.count('class="sim rep"'))
    assert marked[1] > marked[0]
