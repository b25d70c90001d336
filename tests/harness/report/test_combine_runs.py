"""Combining runs never counts a task twice: runs of the same tasks stay one row each, and two models behind one
config option (a sweep over model.model) are two rows, because records name a model by what answers; runs measured
at other thresholds are rows of their own, each at its own."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness.llm import ModelConfig
from harness.llm.naming import model_name
from harness.metrics.run import METRICS_FILE
from harness.records import TRIALS_FILE, TrialLog, TrialRecord, read_manifest, write_manifest
from harness.report import REPORT_FILE, write_report
from tests.harness.factories import make_record
from tests.in_process import run_module

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
SALT = "pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_T2"


def records(model: str = "m") -> list[TrialRecord]:
    """self_diagnosis solves SALT in trial 1 and never MUG; no_memory solves neither."""
    made = [
        *(make_record(t, "Take the mug.", task=MUG) for t in range(3)),
        make_record(0, "look in drawer 1", task=SALT),
        make_record(1, None, True, task=SALT),
        *(make_record(t, None, task=task, condition="no_memory") for t in range(3) for task in (MUG, SALT)),
    ]
    return [r.model_copy(update={"actor_model": model, "reflector_model": model}) for r in made]


def write_run(run_dir: Path, made: list[TrialRecord]) -> Path:
    log = TrialLog(run_dir)
    for record in made:
        log.append(record)
    return run_dir


def conditions_section(report: str) -> str:
    return report.split("\n## Conditions\n")[1].split("\n## ")[0]


def rows(report: str, condition: str) -> list[str]:
    """The condition table's rows of `condition`."""
    return [line for line in conditions_section(report).splitlines() if line.startswith(f"| {condition}")]


def test_two_runs_of_the_same_tasks_are_one_row_each_and_the_report_says_so(tmp_path: Path) -> None:
    first, second = write_run(tmp_path / "r1", records()), write_run(tmp_path / "r2", records())
    report = write_report([first, second], tmp_path / "out", plots=False).read_text()
    assert [row.split(" | ")[:3] for row in rows(report, "self_diagnosis")] == [
        ["| self_diagnosis (r1)", "m", "1/2 (50%)"],
        ["| self_diagnosis (r2)", "m", "1/2 (50%)"],
    ]
    assert [row.split(" | ")[2] for row in rows(report, "no_memory")] == ["0/2 (0%)", "0/2 (0%)"]
    # Pooled, the tasks would count twice: 2/4 solved, MUG frozen 2/2.
    assert [row.split(" | ")[-2] for row in rows(report, "self_diagnosis")] == ["1/1 (100%)", "1/1 (100%)"]
    assert (
        "Kept apart here (runs of the same tasks, one row per run, not paired): self_diagnosis (r1); "
        "self_diagnosis (r2); no_memory (r1); no_memory (r2)."
    ) in report


def test_runs_of_other_tasks_are_still_pooled(tmp_path: Path) -> None:
    mug = write_run(tmp_path / "mug", [r for r in records() if r.task_id == MUG])
    salt = write_run(tmp_path / "salt", [r for r in records() if r.task_id == SALT])
    report = write_report([mug, salt], tmp_path / "out", plots=False).read_text()
    assert [row.split(" | ")[:3] for row in rows(report, "self_diagnosis")] == [["| self_diagnosis", "m", "1/2 (50%)"]]
    assert "Pooled here: self_diagnosis pooled from mug, salt; no_memory pooled from mug, salt." in report
    assert "Kept apart" not in conditions_section(report)


def test_a_three_repeat_and_a_one_repeat_run_are_rows_of_their_own(tmp_path: Path) -> None:
    """Issue 48: a task solved in some of 3 chains (pass@3) and one solved in its only chain (pass@1) are different
    events; pooled into one row (issue 39 labelled it "1 to 3 repeats per task") its solved share meant neither. Kept
    apart, as runs at other thresholds are, each row says its own repeats."""
    mug = [r for r in records() if r.task_id == MUG and r.condition == "self_diagnosis"]
    thrice = write_run(tmp_path / "mug", [r.model_copy(update={"repeat": k}) for k in range(3) for r in mug])
    once = write_run(tmp_path / "salt", [r for r in records() if r.task_id == SALT and r.condition == "self_diagnosis"])
    report = write_report([thrice, once], tmp_path / "out", plots=False).read_text()
    three, one = rows(report, "self_diagnosis")
    assert three.startswith("| self_diagnosis (mug) ") and "; 3 repeats" in three
    assert one.startswith("| self_diagnosis (salt) ") and "repeats" not in one
    assert "Kept apart here (repeats differ): self_diagnosis (mug); self_diagnosis (salt)." in report


def test_a_sweep_over_model_ids_of_one_config_option_is_one_row_per_model(tmp_path: Path) -> None:
    served = [
        model_name(ModelConfig(name="openai-compatible", backend="openai", model=m, base_url="http://127.0.0.1:8080/v1"))
        for m in ("a", "b")
    ]
    assert served == ["openai-compatible (a @ 127.0.0.1:8080)", "openai-compatible (b @ 127.0.0.1:8080)"]
    jobs = [write_run(tmp_path / "sweep" / str(n), records(name)) for n, name in enumerate(served)]
    report = write_report(jobs, tmp_path / "sweep", plots=False).read_text()
    assert [row.split(" | ")[:3] for row in rows(report, "self_diagnosis")] == [
        ["| self_diagnosis (0)", served[0], "1/2 (50%)"],
        ["| self_diagnosis (1)", served[1], "1/2 (50%)"],
    ]
    assert "Kept apart here (models differ): self_diagnosis (0); self_diagnosis (1); no_memory (0); no_memory (1)." in report
    assert "runs of the same tasks" not in conditions_section(report)


def test_models_are_named_by_config_model_id_and_host_never_a_path_or_key() -> None:
    def name(**fields: str) -> str:
        return model_name(ModelConfig.model_validate(fields))

    assert name(name="qwen2.5-coder-1.5b", backend="llamacpp", model="qwen2.5-coder-1.5b") == "qwen2.5-coder-1.5b"
    assert name(name="gpt-4o-mini", backend="openai", model="gpt-4o-mini") == "gpt-4o-mini @ api.openai.com"
    assert name(name="x", backend="openai", model="m", base_url="https://llm.example:8443/v1/") == "x (m @ llm.example:8443)"
    with pytest.raises(ValidationError, match="carries a user:password@ and a query string"):  # never reaches a name
        name(name="x", backend="openai", model="m", base_url="https://user:sk-secret@llm.example:8443/v1?k=sk")
    assert name(name="x", backend="openai", model="m", base_url="http://[::1]:8000/v1") == "x (m @ [::1]:8000)"


SOAP_BOTTLE = "pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004321_405868"


def split_run(run: Path, keep: Callable[[str], bool]) -> Path:
    """`run` holding only the records of the tasks `keep` accepts, and no metrics.json (measured again)."""
    lines = (run / TRIALS_FILE).read_text().splitlines(keepends=True)
    (run / TRIALS_FILE).write_text("".join(line for line in lines if keep(json.loads(line)["task_id"])))
    (run / METRICS_FILE).unlink()
    return run


def test_runs_measured_at_other_thresholds_are_rows_of_their_own(
    five_conditions_run: Path, copy_run: Callable[[Path], Path], tmp_path: Path
) -> None:
    """The demo's games in two runs of other tasks, the second measured at metrics.similarity_threshold=0.3 and
    metrics.frozen_threshold=0.2: programmatic's SoapBottle game (RRR 0 at 0.85) is frozen there, and pooled under
    the first run's "RRR >= 0.5" it made 3/3 frozen where that rule finds 2 of the first run's two and 0 of it."""
    first = split_run(copy_run(five_conditions_run), lambda task: task != SOAP_BOTTLE)
    second = split_run(copy_run(five_conditions_run), lambda task: task == SOAP_BOTTLE)
    manifest = read_manifest(second)
    manifest.config["metrics"] = {"similarity_threshold": 0.3, "frozen_threshold": 0.2}
    write_manifest(second, manifest)
    out = tmp_path / "out"
    arguments = (str(first), str(second), "--out", str(out), "--format", "md,csv", "--no-plots")
    result = run_module("harness.cli.report", *arguments)
    assert result.returncode == 0, result.stderr
    report = (out / REPORT_FILE).read_text()
    labels = {
        first: "programmatic (run; ratio >= 0.85, RRR >= 0.5)",
        second: "programmatic (run-2; ratio >= 0.3, RRR >= 0.2)",
    }
    for run, label in labels.items():
        (row,) = rows(report, label)
        # Each row is what its run's own report says of it, at its own thresholds.
        own = write_report([run], run / "own", html=False, plots=False).read_text()
        (own_row,) = rows(own, "programmatic |")
        assert row.split(" | ")[1:] == own_row.split(" | ")[1:]
    frozen = [rows(report, label)[0].split(" | ")[-2] for label in labels.values()]
    assert [cell.split("/")[0] for cell in frozen] == ["2", "1"]
    assert "| frozen (RRR >= its row's metrics.frozen_threshold) |" in report
    assert "Kept apart here (thresholds differ): self_diagnosis (run; ratio >= 0.85, RRR >= 0.5);" in report
    with (out / "conditions.csv").open(newline="") as handle:
        table = {(r["condition"], r["similarity_threshold"], r["frozen_threshold"]) for r in csv.DictReader(handle)}
    assert {(labels[first], "0.85", "0.5"), (labels[second], "0.3", "0.2")} <= table
    # The effects refuse them too: no single control.
    assert "self_diagnosis is kept apart over runs" in report
