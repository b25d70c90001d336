"""The first solving trial (the 0-based trial of a task's first success; per condition its mean over solved tasks,
undefined when none is solved, never 0; paired over the tasks solved under both conditions), counted by hand from
the replays' trials.jsonl, in every output: metrics.json, report.md, report.html, conditions.csv and .tex, the
DataFrame, the MLflow run, the index page and effects.json.

HumanEval's demo solves HumanEval/0 at trial 1 under both its conditions; HotpotQA's solves one question at trial 0
under every condition but model_swap, which solves none."""

from __future__ import annotations

import csv
import html
import json
import shutil
from pathlib import Path

import pytest

from harness.metrics.run import METRICS_FILE
from harness.report._index_run import run_row
from harness.report._report import write_formats
from harness.report.index import write_index_page
from harness.report.table_files import latex_cell
from tests.harness.report.commonmark import tables

pytestmark = pytest.mark.slow

HEADING = "first solving trial, mean (solved tasks)"


def by_hand(run: Path) -> dict[str, float | None]:
    """Per condition of the run's records, the mean over its solved tasks of each one's first won trial."""
    first: dict[str, dict[str, int]] = {}
    for line in (run / "trials.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        won = first.setdefault(record["condition"], {})
        if record["success"]:
            won[record["task_id"]] = min(won.get(record["task_id"], record["trial"]), record["trial"])
    return {c: sum(won.values()) / len(won) if won else None for c, won in first.items()}


def expected_cell(value: float | None, solved: int) -> str:
    return f"{'undefined' if value is None else f'{value:.2f}'} ({solved})"


def test_by_hand_the_demos_solve_where_the_fixtures_say(humaneval_demo_run: Path, hotpotqa_demo_run: Path) -> None:
    assert by_hand(humaneval_demo_run) == {"self_diagnosis": 1.0, "programmatic": 1.0}
    hotpotqa = by_hand(hotpotqa_demo_run)
    assert hotpotqa.pop("model_swap") is None and set(hotpotqa.values()) == {0.0}


@pytest.mark.parametrize("demo", ["humaneval_demo_run", "hotpotqa_demo_run"])
def test_metrics_json_report_md_and_report_html(demo: str, request: pytest.FixtureRequest) -> None:
    run: Path = request.getfixturevalue(demo)
    hand = by_hand(run)
    metrics = json.loads((run / METRICS_FILE).read_text(encoding="utf-8"))
    assert {c["condition"]: c["first_solving_trial"] for c in metrics["conditions"]} == hand
    header, *rows = tables((run / "report.md").read_text(encoding="utf-8"))[1]
    column = header.index(HEADING)
    assert header[column - 1] == "solved / tasks"
    solved = {c["condition"]: c["totals"]["solved"] for c in metrics["conditions"]}
    assert {row[0]: row[column] for row in rows} == {c: expected_cell(hand[c], solved[c]) for c in hand}
    page = (run / "report.html").read_text(encoding="utf-8")
    assert f"<th>{HEADING}</th>" in page and f"<td>{expected_cell(hand['self_diagnosis'], 1)}</td>" in page


def test_the_csv_latex_and_dataframe(humaneval_demo_run: Path, hotpotqa_demo_run: Path, tmp_path: Path) -> None:
    from harness.report.frames import load_conditions

    for run in (humaneval_demo_run, hotpotqa_demo_run):
        hand = by_hand(run)
        out = tmp_path / run.name
        write_formats([run], out, ("csv", "latex"))
        with (out / "conditions.csv").open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert {r["condition"]: r["first_solving_trial"] for r in rows} == {
            c: "" if v is None else str(v) for c, v in hand.items()
        }
        tex = (out / "conditions.tex").read_text(encoding="utf-8").splitlines()
        header = next(line for line in tex if line.startswith("condition & "))
        column = header.removesuffix(r" \\").split(" & ").index(r"first\_solving\_trial")
        cells = {line.split(" & ")[0].replace("\\_", "_"): line.split(" & ")[column] for line in tex if " & " in line}
        assert {c: cells[c] for c in hand} == {c: latex_cell(v) for c, v in hand.items()}
        frame = load_conditions([run]).set_index("condition")["first_solving_trial"]
        for condition, value in hand.items():
            assert frame[condition] == value if value is not None else frame[condition] != frame[condition]


def test_the_mlflow_run(humaneval_demo_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mlflow")
    # The test's own reads as the harness makes them (tests/harness/run/test_tracking.py), restored after.
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    from mlflow import MlflowClient

    from harness.metrics.run import RunMetrics
    from harness.records import read_manifest
    from harness.run.tracking import log_run
    from harness.run.tracking_settings import TrackingSettings

    uri = f"file:{tmp_path / 'mlruns'}"
    settings = TrackingSettings(backend="mlflow", tracking_uri=uri, experiment_name="first solving trial")
    metrics = RunMetrics.model_validate_json((humaneval_demo_run / METRICS_FILE).read_text())
    config = read_manifest(humaneval_demo_run).config
    logged = MlflowClient(tracking_uri=uri).get_run(log_run(settings, config, humaneval_demo_run, metrics)).data.metrics
    assert {c: logged[f"{c}/first_solving_trial"] for c in by_hand(humaneval_demo_run)} == by_hand(humaneval_demo_run)


def test_the_index_page(humaneval_demo_run: Path, hotpotqa_demo_run: Path, tmp_path: Path) -> None:
    humaneval = dict(line.split(": ", 1) for line in run_row(humaneval_demo_run, "humaneval", None).figures)
    first = "solved 20% of 5 tasks; first solving trial 1.00 (mean over 1 solved); "
    assert humaneval["self_diagnosis"].startswith(first)
    hotpotqa = dict(line.split(": ", 1) for line in run_row(hotpotqa_demo_run, "hotpotqa", None).figures)
    assert "; first solving trial — (none solved); " in hotpotqa["model_swap"]
    assert "; first solving trial 0.00 (mean over 1 solved); " in hotpotqa["self_diagnosis"]
    shutil.copytree(humaneval_demo_run, tmp_path / "humaneval")
    page = write_index_page(tmp_path).read_text(encoding="utf-8")
    assert f"<div>self_diagnosis: {html.escape(humaneval['self_diagnosis'], quote=False)}</div>" in page


def test_effects_pair_the_tasks_solved_under_both(humaneval_demo_run: Path, hotpotqa_demo_run: Path) -> None:
    """Each condition's difference from the control over the tasks both solved, by hand: HumanEval/0 at trial 1
    under both (difference 0, four tasks dropped); model_swap solves none, so nothing pairs and it says so."""
    effects = json.loads((humaneval_demo_run / "effects.json").read_text(encoding="utf-8"))
    (row,) = [r for r in effects["rows"] if r["measure"] == "first_solving_trial"]
    assert (row["condition"], row["n"], row["dropped"]) == ("programmatic", 1, 4)
    assert (row["control_mean"], row["condition_mean"], row["difference"]) == (1.0, 1.0, 0.0)
    assert row["test"] == "paired_permutation"
    effects = json.loads((hotpotqa_demo_run / "effects.json").read_text(encoding="utf-8"))
    rows = {r["condition"]: r for r in effects["rows"] if r["measure"] == "first_solving_trial"}
    assert (rows["model_swap"]["n"], rows["model_swap"]["difference"]) == (0, None)
    assert all((r["n"], r["difference"]) == (1, 0.0) for c, r in rows.items() if c != "model_swap")
    shown = tables((humaneval_demo_run / "report.md").read_text(encoding="utf-8"))
    effects_table = next(table for table in shown if table[0][0] == "measure")
    # Named with the subset it is defined on: the tasks each condition's own success selects.
    label = "first solving trial (tasks solved under both)"
    assert [label, "programmatic", "1 (4)", "1.00", "1.00", "+0.00"] in [r[:6] for r in effects_table]
