"""The Diagnosis section and the reflection view: a run without diagnosis.jsonl says so and how to compute it; with one,
report.md holds the table, the catalogue's diagnosis columns reach the CSV (and so the DataFrames and MLflow), and
report.html marks the decisive and claimed steps in the trajectory and a confabulated claim, its words as text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.metrics.diagnosis.rows import LAST_STEP
from harness.records import read_trials
from harness.records.diagnosis import Claim, GroundTruth, ReflectionClaims
from harness.records.diagnosis_log import (
    TrialDiagnosis,
    diagnosis_log,
    trajectory_sha256,
)
from harness.report import combine, load_runs, write_report
from harness.report._runs import load_run
from harness.report.data_tables import conditions_data
from harness.report.html import HTML_FILE
from tests.browser import headless_chromium
from tests.harness.report.html.pages import MUG, TRAP, records, write_small_run


def test_a_run_without_its_diagnosis_says_so_and_how_to_compute_it(five_conditions_run: Path) -> None:
    report = (five_conditions_run / "report.md").read_text()
    assert "## Diagnosis\n\nNo diagnosis: this run was played with metrics.diagnosis=false" in report
    assert "`reflexion-diagnosis RUN_DIR`" in report


def _diagnosed_small_run(run_dir: Path) -> Path:
    write_small_run(run_dir)
    items = []
    for record in records():
        if record.reflection is None:
            continue
        truth = GroundTruth(domain="alfworld", task_id=MUG, rule="planted/1", scored=True, steps=1, decisive_step=1,
                            category="wrong_receptacle", error_steps=[1])
        confabulated = Claim(kind="object", text=TRAP, start=0, end=len(TRAP), means="a script", confabulated=True)
        said = ReflectionClaims(rule="planted/1", claimed_steps=[1] if record.trial == 0 else [],
                                cause="wrong_receptacle", claims=[confabulated] if record.trial == 1 else [])
        items.append(TrialDiagnosis(task_id=MUG, condition=record.condition, trial=record.trial,
                                    trajectory_sha256=trajectory_sha256(record.trajectory), truth=truth,
                                    claims=said, rows={LAST_STEP: ReflectionClaims(rule="r", claimed_steps=[1])}))
    diagnosis_log(run_dir).append(items)
    return run_dir


def test_the_section_the_columns_and_the_marked_trajectory(tmp_path: Path) -> None:
    run = _diagnosed_small_run(tmp_path / "run")
    write_report([run], run, plots=False)
    report = (run / "report.md").read_text()
    assert "### alfworld" in report and "| self_diagnosis | condition | 3 (1) |" in report
    row = conditions_data(combine(load_runs([run]))).rows[0]  # the CSV, LaTeX and DataFrame rows
    assert (row["diagnosis_exact"], row["diagnosis_exact_n"], row["diagnosis_confabulated"]) == (1.0, 3, 1.0)
    with headless_chromium() as browser:
        browser.open(run / HTML_FILE)
        shown = browser.evaluate("Array.from(document.querySelectorAll('.dg'), (d) => d.textContent)")
        assert shown[0].startswith("decisive step 1 (wrong_receptacle) reflection names step 1")
        assert f"confabulated object: {TRAP}" in shown[1] and "exact step: miss" in shown[1]
        browser.evaluate("document.querySelectorAll('details.tj').forEach((d) => { d.open = true; })")
        marks = browser.evaluate(
            "new Promise((done) => setTimeout(() => done(Array.from(document.querySelectorAll('ol.steps li'),"
            " (li) => li.className + ':' + (li.querySelector('.mk') || {textContent: ''}).textContent)), 200))"
        )
        assert marks[:2] == ["dec cl err:decisive, claimed, error", "dec err:decisive, error"]
        assert browser.evaluate("typeof window.__pwned") == "undefined"


def test_a_diagnosis_written_after_the_run_is_read_beside_its_metrics_json(hotpotqa_demo_run: Path,
                                                                          copy_run: Callable[[Path], Path]) -> None:
    run = copy_run(hotpotqa_demo_run)
    reflected = [r for r in read_trials(run) if not r.success and r.reflection is not None]
    truth = GroundTruth(domain="hotpotqa", task_id="q", rule="planted/1", scored=True, steps=2, decisive_step=2,
                        category="hop1_miss")
    diagnosis_log(run).append([
        TrialDiagnosis(task_id=r.task_id, condition=r.condition, trial=r.trial, trajectory_sha256="s",
                       truth=truth.model_copy(update={"task_id": r.task_id}),
                       claims=ReflectionClaims(rule="planted/1", claimed_steps=[2]))
        for r in reflected
    ])
    loaded = load_run(run, "run")
    assert loaded.metrics_source == "metrics.json"  # a diagnosis added later is no disagreement with it
    rows = {c.condition: c.totals.diagnosis for c in loaded.metrics.conditions}
    assert rows["self_diagnosis"] is not None and rows["self_diagnosis"].measures["exact"].share == 1.0
