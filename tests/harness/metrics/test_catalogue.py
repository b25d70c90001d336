"""The figure catalogue declares each figure with its value per task, its aggregation over tasks and its direction
(issue 46): metrics.json stores every figure, a run recorded before a figure existed is reported with it measured
from its records and no "disagrees" verdict, and docs/metrics.md's figure table is the catalogue's own."""

from __future__ import annotations

import json
from pathlib import Path

from harness.metrics.figure_model import AGGREGATES, Measured
from harness.metrics.figures import CATALOGUE, PAIRED, PER_CHAIN, catalogue_table
from harness.metrics.run import METRICS_FILE, write_metrics
from harness.records import TrialLog, write_manifest
from harness.report import load_runs
from tests.harness.factories import make_record
from tests.harness.report.test_report import manifest_of

METRICS_DOC = Path(__file__).resolve().parents[3] / "docs" / "metrics.md"
MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
SALT = "pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_T2"


def test_every_figure_names_its_value_per_task_its_aggregation_and_its_direction() -> None:
    for figure in CATALOGUE:
        assert figure.per_task and figure.aggregate in AGGREGATES, figure.name
        assert figure.better in ("higher", "lower", None), figure.name
    assert {figure.name for figure in PER_CHAIN} >= {"trials_to_win", "silent"}


def test_no_two_estimands_share_a_name() -> None:
    """Issue 48: with repeats the condition table's solved counts a task solved in some chain, the effects' its share
    of chains won; the first solving trial and RRR are defined on subsets the outcome selects. Each says so."""
    assert PAIRED["solved"].label == "solved (share of chains won)"
    assert PAIRED["first_solving_trial"].label == "first solving trial (tasks solved under both)"
    assert PAIRED["rrr"].label == "RRR (tasks failed twice under both)"
    assert all(PAIRED[m].selection for m in ("first_solving_trial", "rrr", "rrr_matched"))
    assert len({paired.label for paired in PAIRED.values()}) == len(PAIRED)


def test_docs_figure_table_is_the_catalogues() -> None:
    # When a figure is added or changed, paste this table over the one in docs/metrics.md ("## Figures").
    assert catalogue_table() in METRICS_DOC.read_text(encoding="utf-8"), catalogue_table()


def _run(tmp_path: Path) -> Path:
    run_dir = tmp_path / "run"
    log = TrialLog(run_dir)
    for task, won in ((MUG, None), (SALT, 2)):
        for trial in range(3):
            log.append(make_record(trial, None if trial == won else "Take the mug.", trial == won, task=task))
    write_manifest(
        run_dir,
        manifest_of("alfworld", ["self_diagnosis"], 3).model_copy(update={"tasks": [MUG, SALT], "status": "finished"}),
    )
    return run_dir


def test_metrics_json_stores_every_figure_and_its_value_per_task(tmp_path: Path) -> None:
    run_dir = _run(tmp_path)
    measured = load_runs([run_dir])[0].metrics
    write_metrics(run_dir, measured)
    (condition,) = json.loads((run_dir / METRICS_FILE).read_text())["conditions"]
    assert list(condition["figures"]) == [figure.name for figure in CATALOGUE]
    report = measured.conditions[0]
    assert condition["figures"] == {f.name: f.value(Measured(report.totals, report.tasks)) for f in CATALOGUE}
    # MUG never won in 3 trials, SALT first won at trial 2: 3 and 2 trials before the first win.
    assert [task["figures"]["trials_to_win"] for task in condition["tasks"]] == [3.0, 2.0]
    assert condition["figures"]["trials_to_win"] == 2.5
    # The aggregation is the figure's columns' own: solved's share of tasks, mean RRR over tasks with one.
    assert condition["figures"]["solved"] == condition["totals"]["intervals"]["solved"]["share"]
    assert condition["figures"]["mean_rrr"] == condition["totals"]["mean_rrr"]


def test_a_run_recorded_before_a_figure_existed_reports_it_from_its_records_without_disagreeing(
    tmp_path: Path,
) -> None:
    run_dir = _run(tmp_path)
    measured = load_runs([run_dir])[0].metrics
    older = json.loads(measured.model_dump_json())
    for condition in older["conditions"]:
        del condition["figures"]
        for task in condition["tasks"]:
            del task["figures"]  # written before any figure was measured per chain
    (run_dir / METRICS_FILE).write_text(json.dumps(older))
    [run] = load_runs([run_dir])
    assert run.metrics_source == METRICS_FILE
    assert [task.figures["trials_to_win"] for task in run.metrics.conditions[0].tasks] == [3.0, 2.0]
    # A figure it does hold and that disagrees is still caught.
    older["conditions"][0]["tasks"][0]["figures"] = {"trials_to_win": 1.0}
    (run_dir / METRICS_FILE).write_text(json.dumps(older))
    assert load_runs([run_dir])[0].metrics_source.endswith("(metrics.json disagrees with what its records measure)")
