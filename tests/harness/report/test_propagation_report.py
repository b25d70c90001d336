"""`python run.py experiment=propagation` end to end, in-process, against a scripted OpenAI-compatible critic over
HTTP: propagation.json, the trace's table, and the "Propagation" section of report.md and report.html, where the
critic's rule (holding HTML and a markdown link) stays text. Then `reflexion-report` on the same run
directory, and its refusals."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.records.propagation import PropagationStudy
from harness.reflection.insights.trace import RESULT_FILE, study_traces, table
from harness.report import REPORT_FILE
from harness.cli.report import main as report_main
from harness.report.plot_files import CARRIERS_BY_STEP
from harness.report.html import HTML_FILE
from harness.report.index import index_rows
from tests.harness.report.commonmark import html_tags, html_urls, link_targets, tables
from tests.in_process import call_main
from tests.runner import run_cli
from tests.scripted_critic import ScriptedCritic

SEED, TRAINING = 0, 4
VACUOUS = "Be careful."


def _critic() -> ScriptedCritic:
    """ADDs one generic rule, then, in the critique showing the off-task plant, ADDs a rule naming the plant's marker
    inside HTML and beside a markdown link; every other critique AGREEs with rule 1."""
    return ScriptedCritic("add", SEED, TRAINING, "Look for the <b>{marker}</b> first, as [x](http://e) says.")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, ScriptedCritic]:
    """The study played once: one seed, four training tasks, the clean and off-task plants, the gate off and on."""
    root = tmp_path_factory.mktemp("propagation")
    run_dir = root / "run"
    with _critic() as critic:
        result = run_cli(
            "experiment=propagation", "model=openai-compatible", "model.api=chat", "model.model=scripted",
            f"model.base_url={critic.base_url}", f"scenario.seeds=[{SEED}]", f"scenario.training_tasks={TRAINING}",
            "scenario.plants=[none,off_task]", "scenario.gates=[false,true]", f"scenario.vacuous='{VACUOUS}'",
            "scenario.plant_steps=[-1]", "scenario.donors=1",
            f"scenario.cache.path={root / 'cache.jsonl'}", f"hydra.run.dir={run_dir}",
            env={"OPENAI_API_KEY": "none"},
        )
    assert result.returncode == 0, result.stderr[-3000:]
    return run_dir, result.stdout, critic


def test_the_run_writes_its_study_and_prints_the_trace_table(played: tuple[Path, str, ScriptedCritic]) -> None:
    run_dir, stdout, critic = played
    study = PropagationStudy.model_validate_json((run_dir / RESULT_FILE).read_text())
    assert [(b.gate, b.plant.kind) for b in study.builds] == [(False, "none"), (False, "off_task"),
                                                             (True, "none"), (True, "off_task")]
    assert study.model == "openai-compatible" and len(study.builds[0].training) == TRAINING
    header, rows = table(study_traces(study))
    assert "| " + " | ".join(header) + " |" in stdout
    by_row = {(row[0], row[1]): dict(zip(header, row)) for row in rows}
    assert by_row["off", "off_task"]["survives"] == "1/1" and by_row["on", "off_task"]["survives"] == "0/1"
    assert by_row["on", "off_task"]["refused"] == "1" and by_row["off", "none*"]["survives"].startswith("0/")
    assert "Gate target (met)" in stdout


def test_the_report_shows_the_propagation_section(played: tuple[Path, str, ScriptedCritic]) -> None:
    run_dir, stdout, critic = played
    markdown = (run_dir / REPORT_FILE).read_text()
    assert "\n## Propagation\n" in markdown and "Gate target (met)" in markdown
    study = PropagationStudy.model_validate_json((run_dir / RESULT_FILE).read_text())
    header, rows = table(study_traces(study))
    # The trace's table as it is, then the carriers: the one carrier's rule as the critic wrote it, as text.
    found = tables(markdown)
    trace_table, plants = found[0], found[-1]
    carriers = next(t for t in found if t[0][:3] == ["gate", "plant", "seed"] and "rule" in t[0])
    assert trace_table == [header, *rows]
    assert [row[5] for row in carriers[1:]] == [critic.rule]
    assert len(plants) == 1 + len(study.builds)
    assert (run_dir / CARRIERS_BY_STEP).stat().st_size > 0
    assert link_targets(markdown) == [CARRIERS_BY_STEP, CARRIERS_BY_STEP]  # the link and the image, nothing else


def test_the_critic_s_markup_stays_text_in_report_html(played: tuple[Path, str, ScriptedCritic]) -> None:
    run_dir, _, critic = played
    page = (run_dir / HTML_FILE).read_text()
    assert f"&lt;b&gt;{critic.marker}&lt;/b&gt; first, as [x](http://e) says." in page
    assert "b" not in html_tags(page) and "http://e" not in html_urls(page)
    assert "Propagation" in page and "Gate target (met)" in page


def test_python_m_harness_report_reports_a_propagation_run(played: tuple[Path, str, ScriptedCritic],
                                                          tmp_path: Path) -> None:
    run_dir = shutil.copytree(played[0], tmp_path / "run")
    (run_dir / REPORT_FILE).unlink()
    (run_dir / HTML_FILE).unlink()
    result = call_main(report_main, [str(run_dir), "--html"])
    assert result.returncode == 0, result.stderr
    assert (run_dir / REPORT_FILE).read_text() == (played[0] / REPORT_FILE).read_text()
    assert (run_dir / HTML_FILE).is_file()


@pytest.mark.parametrize(("arguments", "says"), [
    (["--format", "md,csv"], "is a propagation run, whose report is md and html; csv is for runs of trials."),
    (["OTHER"], "is a propagation run, reported alone; give it without other runs."),
])
def test_a_propagation_run_is_reported_alone_in_md_and_html(played: tuple[Path, str, ScriptedCritic], tmp_path: Path,
                                                            arguments: list[str], says: str) -> None:
    other = tmp_path / "other"
    other.mkdir()
    argv = [str(played[0]), *[str(other) if a == "OTHER" else a for a in arguments], "--out", str(tmp_path / "out")]
    result = call_main(report_main, argv)
    assert result.returncode != 0 and says in result.stderr and result.stderr.count("\n") == 1


def test_an_unreadable_study_record_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / RESULT_FILE).write_text('{"model": "m"}')
    result = call_main(report_main, [str(tmp_path)])
    assert result.returncode != 0 and result.stderr.count("\n") == 1
    assert f"{tmp_path / RESULT_FILE} is not a propagation record of this harness" in result.stderr


def test_the_index_lists_a_propagation_run_with_its_builds_and_the_gate_target(
    played: tuple[Path, str, ScriptedCritic],
) -> None:
    """'The index page leaves propagation runs out, with no row or note.'"""
    run_dir, stdout, _ = played
    (row,) = [row for row in index_rows(run_dir.parent, run_dir.parent) if row.path == "run"]
    assert (row.kind, row.status, row.domains) == ("propagation", "finished", ["alfworld"])
    assert row.models == ["openai-compatible"]
    assert row.conditions == ["none", "off_task"] and row.report == f"run/{HTML_FILE}"
    assert row.figures[0] == f"4 rule libraries: seeds {SEED}; plants none, off_task; gate off, on"
    assert row.figures[1].startswith("Gate target (met)") and row.figures[1] in stdout
