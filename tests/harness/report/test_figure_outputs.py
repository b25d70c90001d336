"""Every output shows the figure catalogue's figures as the catalogue reads and writes them (harness.metrics.figures):
report.md's and report.html's condition table, conditions.csv and .tex, the DataFrame, the MLflow run, the index
page and the effects. Any output that lists a figure of its own, or reads one otherwise, fails here."""

from __future__ import annotations

import csv
import html
import json
import shutil
from pathlib import Path

import pytest

from harness.metrics.effects import MEASURES
from harness.metrics.figures import (
    CATALOGUE,
    DATA_COLUMNS,
    PAIRED,
    Measured,
    figure_values,
    headlines,
    report_cells,
    report_headings,
    tracked_values,
)
from harness.metrics.run import METRICS_FILE, RunMetrics
from harness.report._report import write_formats
from harness.report.index import write_index_page
from harness.report.table_files import latex_cell
from tests.harness.report.commonmark import tables

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def written(hotpotqa_demo_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HotpotQA demo's report in every format, written apart from the run (it has an identity rule, solved
    tasks and a condition that solved none)."""
    out = tmp_path_factory.mktemp("figures")
    write_formats([hotpotqa_demo_run], out, ("md", "html", "csv", "latex"))
    return out


def measured(run: Path) -> RunMetrics:
    return RunMetrics.model_validate_json((run / METRICS_FILE).read_text())


def csv_cell(value: object) -> str:
    return "" if value is None else str(value)


def test_the_catalogue_names_each_column_once() -> None:
    assert len(DATA_COLUMNS) == len(set(DATA_COLUMNS))
    assert len({figure.name for figure in CATALOGUE}) == len(CATALOGUE)
    assert all(len(figure.headings) == (1 if figure.cells else 0) for figure in CATALOGUE)


def test_report_md_and_html_show_the_catalogues_cells(hotpotqa_demo_run: Path, written: Path) -> None:
    metrics = measured(hotpotqa_demo_run)
    conditions = tables((written / "report.md").read_text(encoding="utf-8"))[1]
    header, *rows = conditions
    assert header == ["condition", "actor / reflector", *report_headings(metrics.thresholds.frozen_rule)]
    page = (written / "report.html").read_text(encoding="utf-8")
    for row, report in zip(rows, metrics.conditions, strict=True):
        cells = report_cells(Measured(report.totals, report.tasks))
        assert row[2:] == cells, report.condition
        assert all(html.escape(cell, quote=False) in page for cell in cells)
    assert all(html.escape(heading, quote=False) in page for heading in header)


def test_csv_latex_and_the_dataframe_hold_the_catalogues_values(hotpotqa_demo_run: Path, written: Path) -> None:
    from harness.report.frames import load_conditions

    metrics = measured(hotpotqa_demo_run)
    with (written / "conditions.csv").open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert [c for c in reader.fieldnames or [] if c in DATA_COLUMNS] == DATA_COLUMNS
        rows = list(reader)
    frame = load_conditions([hotpotqa_demo_run])
    assert [c for c in frame.columns if c in DATA_COLUMNS] == DATA_COLUMNS
    tex = (written / "conditions.tex").read_text(encoding="utf-8")
    assert all(latex_cell(column) in tex for column in DATA_COLUMNS)
    for row, (_, framed), report in zip(rows, frame.iterrows(), metrics.conditions, strict=True):
        values = figure_values(Measured(report.totals, report.tasks))
        assert {column: row[column] for column in DATA_COLUMNS} == {k: csv_cell(v) for k, v in values.items()}
        for column, value in values.items():
            assert framed[column] == value or (value is None and framed[column] != framed[column]), column


def test_the_mlflow_run_holds_the_catalogues_numbers(
    hotpotqa_demo_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mlflow")
    # The test's own reads as the harness makes them (tests/harness/run/test_tracking.py), restored after.
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    from mlflow import MlflowClient

    from harness.records import read_manifest
    from harness.run.tracking import log_run
    from harness.run.tracking_settings import TrackingSettings

    uri = f"file:{tmp_path / 'mlruns'}"
    settings = TrackingSettings(backend="mlflow", tracking_uri=uri, experiment_name="figures")
    metrics = measured(hotpotqa_demo_run)
    run_id = log_run(settings, read_manifest(hotpotqa_demo_run).config, hotpotqa_demo_run, metrics)
    logged = MlflowClient(tracking_uri=uri).get_run(run_id).data.metrics
    for report in metrics.conditions:
        prefix = f"{report.condition}/"
        mine = {k.removeprefix(prefix): v for k, v in logged.items() if k.startswith(prefix)}
        mine.pop("solved_by_trial")
        assert mine == pytest.approx(tracked_values(Measured(report.totals, report.tasks))), report.condition


def test_the_index_page_shows_the_catalogues_headlines(hotpotqa_demo_run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "results"
    shutil.copytree(hotpotqa_demo_run, folder / "hotpotqa")
    page = write_index_page(folder).read_text(encoding="utf-8")
    for report in measured(hotpotqa_demo_run).conditions:
        line = f"{report.condition}: " + "; ".join(headlines(Measured(report.totals, report.tasks)))
        assert f"<div>{html.escape(line, quote=False)}</div>" in page


def test_the_effects_compare_the_catalogues_paired_figures(written: Path) -> None:
    effects = json.loads((written / "effects.json").read_text(encoding="utf-8"))
    assert list(dict.fromkeys(row["measure"] for row in effects["rows"])) == list(PAIRED)
    assert MEASURES == {measure: paired.label for measure, paired in PAIRED.items()}
    shown = tables((written / "report.md").read_text(encoding="utf-8"))
    effects_table = next(table for table in shown if table[0][0] == "measure")
    assert list(dict.fromkeys(row[0] for row in effects_table[1:])) == [p.label for p in PAIRED.values()]
