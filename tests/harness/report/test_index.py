"""index.html (`reflexion-report FOLDER --index`): a row for every run, sweep and audit under the folder,
its figures from the files, every value text, links only to pages that exist, and bad input in one sentence."""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import pytest

from harness.errors import visible
from harness.metrics.run import METRICS_FILE, RunMetrics
from harness.records import TRIALS_FILE
from harness.report._index_run import run_row
from harness.cli.report import main
from harness.report.html import INDEX_FILE
from harness.report.index import index_rows, write_index_page
from tests.harness.report.commonmark import html_urls
from tests.harness.report.html.pages import MUG
from tests.harness.report.index_folder import HOSTILE_STATUS, HOSTILE_TASK, SWEEP, write_results
from tests.small_run import snapshot


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_results(tmp_path_factory.mktemp("results"))


def test_every_run_sweep_and_audit_is_a_row_by_path(results: Path) -> None:
    rows = index_rows(results, results)
    assert [(row.kind, row.path) for row in rows] == [
        ("audit", "audit"),
        ("run", "runs/hostile"),
        ("run", "runs/plain"),
        ("sweep", SWEEP),
        ("run", f"{SWEEP}/0"),
        ("run", f"{SWEEP}/1"),
    ]


def test_a_runs_row_holds_its_manifest_records_and_metrics_json(results: Path) -> None:
    rows = {row.path: row for row in index_rows(results, results)}
    plain = rows["runs/plain"]
    metrics = RunMetrics.model_validate_json((results / "runs" / "plain" / METRICS_FILE).read_text())
    (condition,) = metrics.conditions
    assert (plain.status, plain.domains, plain.conditions) == ("finished", ["alfworld"], ["self_diagnosis"])
    assert plain.models == ["m"]
    assert (plain.trials_done, plain.trials_planned) == (4, 4)
    totals = condition.totals
    frozen = f"frozen {totals.frozen}/{totals.rrr_defined} with an RRR ({totals.frozen_share:.0%})"
    first = f"first solving trial {condition.first_solving_trial:.2f} (mean over 1 solved)"
    assert plain.figures == [f"self_diagnosis: solved {totals.solved_share:.0%} of 1 task; {first}; {frozen}"]
    assert plain.search == [MUG] and plain.started == "2026-01-02 03:04"
    # One unsolved trial of a 3-trial plan, still open: at most 3.
    assert (rows["runs/hostile"].trials_done, rows["runs/hostile"].trials_planned) == (1, 3)
    assert rows["runs/hostile"].figures == ["no metrics.json"]
    running = rows[f"{SWEEP}/1"]
    assert (running.status, running.trials_done, running.trials_planned) == ("running", 1, 2)


def test_frozen_is_over_tasks_with_an_rrr_undefined_without_one_beside_the_identity_shares(
    five_conditions_run: Path,
) -> None:
    """The condition table's denominator, not all tasks: no_memory wrote no reflection, so its frozen share is
    undefined, never 0%; every condition shows its task-identity shares (ALFWorld has an identity rule)."""
    metrics = RunMetrics.model_validate_json((five_conditions_run / METRICS_FILE).read_text())
    figures = dict(line.split(": ", 1) for line in run_row(five_conditions_run, "five", None).figures)
    assert list(figures) == [c.condition for c in metrics.conditions]
    no_memory = (
        "solved 0% of 3 tasks; first solving trial — (none solved); frozen — (no task with an RRR); "
        "task identity — (no reflection)"
    )
    assert figures["no_memory"] == no_memory
    for c in metrics.conditions:
        t, identity = c.totals, c.totals.identity
        if not t.rrr_defined:
            continue
        assert identity is not None and identity.reflections
        frozen = f"frozen {t.frozen}/{t.rrr_defined} with an RRR ({t.frozen / t.rrr_defined:.0%})"
        shares = ", ".join(
            f"{label} {getattr(identity, key).count / identity.reflections:.0%}"
            for label, key in (("on task", "on_task"), ("off task", "off_task"), ("vacuous", "vacuous"))
        )
        assert figures[c.condition].endswith(f"; {frozen}; {shares} of {identity.reflections} reflections")
    # A condition with a task of undefined RRR: all tasks as the denominator would read otherwise.
    assert any(0 < c.totals.rrr_defined < c.totals.tasks for c in metrics.conditions)


def test_a_sweeps_row_says_what_it_swept_and_how_far_its_jobs_are(results: Path) -> None:
    sweep = {row.path: row for row in index_rows(results, results)}[SWEEP]
    assert sweep.status == "unfinished"
    assert sweep.figures == ["swept: strategy=self_diagnosis,no_memory", "jobs: 1 of 2 finished (1 running)"]
    assert sweep.conditions == ["self_diagnosis", "no_memory"]
    assert (sweep.trials_done, sweep.trials_planned) == (2 + 1, 2 + 2)


def test_an_audits_row_counts_its_sources_from_audit_json(results: Path) -> None:
    audit = index_rows(results, results)[0]
    assert (audit.status, audit.domains) == ("written", ["alfworld"])
    assert audit.figures == ["1 published source measured, 1 skipped"]


def _page(results: Path, out: Path | None = None) -> str:
    return write_index_page(results, out).read_text(encoding="utf-8")


def test_links_go_only_to_pages_that_exist_relative_and_percent_encoded(results: Path, tmp_path: Path) -> None:
    page = _page(results)
    urls = html_urls(page)
    assert urls == ["audit/audit.html", "runs/plain/report.html", "sweep%2050%25/report.html"]
    assert all((results / unquote(url)).is_file() for url in urls)
    assert not (results / "runs" / "hostile" / "report.html").exists()  # and so that row links nowhere
    elsewhere = _page(results, tmp_path / "out")
    assert all((tmp_path / "out" / unquote(url)).resolve().is_file() for url in html_urls(elsewhere))
    assert html_urls(elsewhere)[0].startswith("../")


def test_a_hostile_task_id_and_status_stay_text_with_control_characters_shown(results: Path) -> None:
    page = _page(results)
    for raw in ("\x1b", "\x01", "\u202e", "<img", "<script>window", "</td><script>"):
        assert raw not in page, f"{raw!r} reached the page raw"
    assert f"<td>{html.escape(visible(HOSTILE_STATUS))}</td>" in page
    assert f'<option value="0">{html.escape(visible(HOSTILE_STATUS))}</option>' in page  # the status filter
    assert html.escape(visible(HOSTILE_TASK.lower())) in page  # what the filter box searches
    assert "javascript" not in " ".join(html_urls(page))


def test_the_command_writes_index_html_into_the_folder(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([str(results), "--index"])
    assert capsys.readouterr().out == f"wrote {results / INDEX_FILE}\n"
    assert "<title>Index: " in (results / INDEX_FILE).read_text()


@pytest.mark.parametrize(
    ("arguments", "sentence"),
    [
        (["{tmp}/missing", "--index"], "{tmp}/missing does not exist; give the folder that holds the runs"),
        (["{tmp}/empty", "--index"], "{tmp}/empty holds no run directory (manifest.json or trials.jsonl), sweep"),
        (["{tmp}/file", "--index"], "{tmp}/file is a file, not a folder"),
        (["{tmp}/empty", "{tmp}/file", "--index"], "--index lists one folder, and 2 were given"),
        (["{tmp}/empty", "--index", "--html"], "--index writes index.html alone"),
    ],
)
def test_bad_input_is_one_sentence_naming_the_value_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], sentence: str
) -> None:
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(SystemExit) as stopped:
        main([argument.format(tmp=tmp_path) for argument in arguments])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {sentence.format(tmp=tmp_path)}") and err.count("\n") == 1
    assert not (tmp_path / "empty" / INDEX_FILE).exists()


def test_index_out_in_a_run_directory_is_refused_and_writes_nothing_there(
    results: Path, small_run: Path, copy_run: Callable[[Path], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(small_run)
    before = snapshot(run)
    for out in (run, run / "pages"):
        with pytest.raises(SystemExit) as stopped:
            main([str(results), "--index", "--out", str(out)])
        assert stopped.value.code == 2
        where = "" if out == run else f"inside {run}, "
        assert capsys.readouterr().err == (
            f"error: --out {out} is {where}another run's directory (it holds manifest.json), and index.html would be "
            "written among its files; give a folder outside every run directory.\n"
        )
    assert snapshot(run) == before


def test_metrics_json_figures_the_records_do_not_back_are_not_shown(
    results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'The index page shows a metrics-only run's counts unchecked ("solved": 10**30 reaches the page).'"""
    edited = shutil.copytree(results / "runs" / "plain", tmp_path / "runs" / "edited")
    metrics = json.loads((edited / METRICS_FILE).read_text())
    metrics["conditions"][0]["totals"]["solved"] = 10**30
    (edited / METRICS_FILE).write_text(json.dumps(metrics))
    metrics_only = shutil.copytree(edited, tmp_path / "runs" / "metrics-only")
    (metrics_only / TRIALS_FILE).unlink()
    main([str(tmp_path), "--index"])
    assert capsys.readouterr().out == f"wrote {tmp_path / INDEX_FILE}\n"
    page = (tmp_path / INDEX_FILE).read_text()
    assert str(10**30) not in page
    rows = {row.path: row for row in index_rows(tmp_path, tmp_path)}
    assert rows["runs/metrics-only"].figures == [
        "metrics.json not shown: trials.jsonl holds no trial of the plan to check its figures against"
    ]
    assert rows["runs/edited"].figures == [
        "self_diagnosis: figures not shown, metrics.json says solved over 10^9 of 1 tasks (frozen 1 of 1 with an "
        "RRR), trials.jsonl holds 1 solved of 1; `reflexion-report RUN_DIR` writes it anew"
    ]
