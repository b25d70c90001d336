"""Combining runs never counts a task twice: runs of the same tasks stay one row each, and two models behind one
config option (a sweep over model.model) are two rows, because records name a model by what answers."""

from __future__ import annotations

from pathlib import Path

from harness.llm import ModelConfig
from harness.llm.naming import model_name
from harness.records import TrialLog, TrialRecord
from harness.report import write_report
from tests.harness.factories import make_record

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
    report = write_report([first, second], tmp_path / "out").read_text()
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
    report = write_report([mug, salt], tmp_path / "out").read_text()
    assert [row.split(" | ")[:3] for row in rows(report, "self_diagnosis")] == [["| self_diagnosis", "m", "1/2 (50%)"]]
    assert "Pooled here: self_diagnosis pooled from mug, salt; no_memory pooled from mug, salt." in report
    assert "Kept apart" not in conditions_section(report)


def test_a_sweep_over_model_ids_of_one_config_option_is_one_row_per_model(tmp_path: Path) -> None:
    served = [
        model_name(ModelConfig(name="openai-compatible", backend="openai", model=m, base_url="http://127.0.0.1:8080/v1"))
        for m in ("a", "b")
    ]
    assert served == ["openai-compatible (a @ 127.0.0.1:8080)", "openai-compatible (b @ 127.0.0.1:8080)"]
    jobs = [write_run(tmp_path / "sweep" / str(n), records(name)) for n, name in enumerate(served)]
    report = write_report(jobs, tmp_path / "sweep").read_text()
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
    secret = name(name="x", backend="openai", model="m", base_url="https://user:sk-secret@llm.example:8443/v1?k=sk")
    assert secret == "x (m @ llm.example:8443)"
    assert name(name="x", backend="openai", model="m", base_url="http://[::1]:8000/v1") == "x (m @ [::1]:8000)"
