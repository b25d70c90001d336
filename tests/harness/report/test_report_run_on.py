"""Reflections at the token limit or run on past their end: counted per condition in metrics.json, summary.md,
report.md and report.html, with a WARNING naming the condition, the counts and the fix; older metrics.json reads."""

from __future__ import annotations

import json
from pathlib import Path

from hydra import compose, initialize_config_dir

from harness.domains.alfworld.identity import record_identity
from harness.metrics.cost import condition_prices
from harness.metrics.run import METRICS_FILE, RunMetrics, run_metrics
from harness.metrics.run_on import RunOnCounts
from harness.records import RunPlan, TrialLog, TrialRecord, write_manifest
from harness.records.calls import ModelCall
from harness.report import load_runs, write_report
from harness.report.html import HTML_FILE
from harness.report.summary import summarize, summary_markdown
from harness.run.validation import validate_config
from harness.run.config_dirs import CONFIG_DIR
from tests.harness.factories import make_record
from tests.harness.report.test_report import manifest_of

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
RAN_ON = " I will take the mug to desk 1.\n\nYou are in the middle of a room. Looking quickly around you, you see"
PLAN = " I should open drawer 1 first, then take the mug 1 and put it in desk 1."
PLAN_B = " Next time I will look in cabinet 2 before the countertops."
FIX = "model.reflector_stop"


def reflector(finish: str) -> ModelCall:
    return ModelCall(role="reflector", key="k", cached=False, backend="openai:m", finish_reason=finish, temperature=0.0)


def records() -> list[TrialRecord]:
    calls = {0: "length", 1: "stop", 2: "stop"}
    reflections = {0: RAN_ON, 1: PLAN, 2: PLAN_B}
    diagnosed = [
        make_record(t, reflections[t], task=MUG).model_copy(update={"calls": [reflector(calls[t])]}) for t in range(3)
    ]
    return diagnosed + [make_record(t, None, task=MUG, condition="no_memory") for t in range(3)]


def plan() -> RunPlan:
    return RunPlan(conditions=["self_diagnosis", "no_memory"], tasks=[MUG], trials=3)


def run_dir_with_records(tmp_path: Path) -> Path:
    run_dir = tmp_path / "run"
    log = TrialLog(run_dir)
    for record in records():
        log.append(record)
    manifest = manifest_of("alfworld", ["self_diagnosis", "no_memory"], trials=3)
    write_manifest(run_dir, manifest.model_copy(update={"tasks": [MUG], "status": "finished"}))
    return run_dir


def without_run_on(metrics: RunMetrics) -> str:
    """metrics.json as written before the run-on counts existed."""
    data = json.loads(metrics.model_dump_json())
    for condition in data["conditions"]:
        del condition["run_on"]
    return json.dumps(data)


def test_metrics_json_counts_each_condition_and_reads_back() -> None:
    metrics = run_metrics(records(), plan(), {MUG: "Mug"}, identity=record_identity)
    counts = {c.condition: c.run_on for c in metrics.conditions}
    assert counts == {
        "self_diagnosis": RunOnCounts(reflections=3, hit_limit=1, ran_on=1),
        "no_memory": RunOnCounts(),
    }
    assert RunMetrics.model_validate_json(metrics.model_dump_json()) == metrics
    older = RunMetrics.model_validate_json(without_run_on(metrics))
    assert [c.run_on for c in older.conditions] == [None, None]


def test_report_md_and_html_show_the_counts_and_warn_for_the_condition_that_has_any(tmp_path: Path) -> None:
    run_dir = run_dir_with_records(tmp_path)
    report = write_report([run_dir], run_dir, plots=False).read_text()
    assert "## Reflection ends" in report
    assert "| self_diagnosis | 3 | 1 | 1 | 0 |" in report and "| no_memory | 0 | 0 | 0 | 0 |" in report
    warnings = [line for line in report.splitlines() if line.startswith("**WARNING:**")]
    assert warnings == [
        "**WARNING:** self_diagnosis: 1 of 3 reflection(s) hit the token limit and 1 ran on past their end into "
        "memory; set model.reflector_stop to the lines that end a reflection and give a local server a context of "
        "at least 8192 tokens (llama.cpp: --n_ctx 8192); see docs/local-servers.md."
    ]
    page = (run_dir / HTML_FILE).read_text()
    assert "<strong>WARNING:</strong> self_diagnosis: 1 of 3 reflection(s) hit the token limit" in page


def test_a_run_without_any_has_no_warning(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    log = TrialLog(run_dir)
    for t in range(2):
        log.append(make_record(t, PLAN, task=MUG))
    write_manifest(run_dir, manifest_of("alfworld", ["self_diagnosis"], trials=2).model_copy(update={"tasks": [MUG]}))
    report = write_report([run_dir], run_dir, plots=False).read_text()
    assert "| self_diagnosis | 2 | 0 | 0 | 2 |" in report  # records without calls: the limit is unknown
    assert "WARNING" not in report


def test_an_older_metrics_json_still_reads_alone_and_beside_its_records(tmp_path: Path) -> None:
    run_dir = run_dir_with_records(tmp_path)
    measured = load_runs([run_dir])[0].metrics
    (run_dir / METRICS_FILE).write_text(without_run_on(measured))
    # Beside its records it still says what they measure: lacking the counts is no disagreement.
    [run] = load_runs([run_dir])
    assert run.metrics_source == METRICS_FILE and run.metrics == measured
    # Alone, its conditions are "not counted", and nothing is warned about.
    (run_dir / "trials.jsonl").unlink()
    report = write_report([run_dir], tmp_path / "out", plots=False).read_text()
    assert "| self_diagnosis | not counted |" in report and "WARNING" not in report


def test_summary_md_carries_the_counts_and_the_warning() -> None:
    overrides = ["strategy=[self_diagnosis,no_memory]", "model=openai-compatible"]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        config = validate_config(compose(config_name="config", overrides=overrides))
    metrics = run_metrics(records(), plan(), {MUG: "Mug"}, identity=record_identity)
    prices = condition_prices(config.model_dump(mode="json"))
    text = summary_markdown(summarize(records(), plan(), prices), metrics, config, prices)
    assert text.count("**WARNING:**") == 1 and "**WARNING:** self_diagnosis: 1 of 3" in text
    assert "reflections written: 3 (reflector answers: 3; at the token limit: 1; ran on past their end: 1)" in text
    assert FIX in text and "docs/local-servers.md" in text


def test_several_runs_get_a_row_each_so_the_run_with_the_problem_is_named(tmp_path: Path) -> None:
    first = run_dir_with_records(tmp_path / "a")
    salt = "pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_T2"
    second = tmp_path / "b" / "run"
    log = TrialLog(second)
    log.append(make_record(0, PLAN, task=salt))
    write_manifest(second, manifest_of("alfworld", ["self_diagnosis"], trials=1).model_copy(update={"tasks": [salt]}))
    report = write_report([first, second], tmp_path / "out", plots=False).read_text()
    assert "| self_diagnosis (a/run) | 3 | 1 | 1 | 0 |" in report and "| self_diagnosis (b/run) | 1 | 0 | 0 | 1 |" in report
    warnings = [line for line in report.splitlines() if line.startswith("**WARNING:**")]
    assert len(warnings) == 1 and warnings[0].startswith("**WARNING:** self_diagnosis (a/run): 1 of 3")
    # A run read from an older metrics.json alone is not counted; the other keeps its row and its warning.
    measured = load_runs([second])[0].metrics
    (second / METRICS_FILE).write_text(without_run_on(measured))
    (second / "trials.jsonl").unlink()
    report = write_report([first, second], tmp_path / "out", plots=False).read_text()
    assert "| self_diagnosis (b/run) | not counted |" in report and "**WARNING:** self_diagnosis (a/run)" in report
