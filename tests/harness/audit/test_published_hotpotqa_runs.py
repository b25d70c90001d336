"""The published CoT logs as runs of the live domain: the same memory as the audit's importer reads, the same record
model as a live run, and one report over both."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.audit.hotpotqa import load_hotpotqa_log
from harness.audit.hotpotqa_runs import PublishedLogError, published_records, write_published_run
from harness.domains.hotpotqa.questions import load_questions
from harness.records import read_trials
from tests.in_process import run_module
from tests.runner import ROOT

COT = ROOT / "data" / "reflexion-logs" / "hotpotqa_runs" / "root" / "CoT"
IMPORTABLE = [
    COT / "no_context" / "reflexion" / "100_questions_5_trials.txt",
    COT / "context" / "last_trial_and_reflexion" / "100_questions_5_trials.txt",
]


@pytest.mark.parametrize("log", IMPORTABLE, ids=lambda p: "/".join(p.parts[-3:-1]))
def test_the_records_hold_the_memory_the_audit_reads(log: Path) -> None:
    records = published_records(log)
    ids = {q.question.strip(): q.id for q in load_questions()}
    tasks = load_hotpotqa_log(log)
    assert len(tasks) == 100 and {r.task_id for r in records} == set(ids.values())
    for task in tasks:
        mine = sorted((r for r in records if r.task_id == ids[task.task_id]), key=lambda r: r.trial)
        assert [r.trial for r in mine] == list(range(len(mine)))
        assert [r.reflection for r in mine if r.reflection is not None] == task.reflections
        assert [r.trial for r in mine if r.success] == ([task.trial_solved] if task.solved else [])
        assert all(r.success == (r.end_reason == "correct") for r in mine)
    # The log's own count after its last trial.
    correct = int(re.findall(r"^Trial summary: Correct: (\d+)", log.read_text(), re.MULTILINE)[-1])
    assert len({r.task_id for r in records if r.success}) == correct


def test_logs_without_reflections_or_of_another_agent_are_refused(tmp_path: Path) -> None:
    for log, reason in [
        (COT / "context" / "reflexion" / "100_questions_5_trials.txt", "prints no reflections"),
        (COT / "context" / "last_trial" / "100_questions_8_trials.txt", "a last_trial run"),
        (COT.parent / "ReAct" / "reflexion" / "100_questions_5_trials.txt", "not a chain-of-thought log"),
    ]:
        with pytest.raises(PublishedLogError, match=reason):
            write_published_run(log, tmp_path / "run")
        assert not (tmp_path / "run").exists()


def test_the_command_writes_a_finished_run_and_refuses_to_overwrite_one(tmp_path: Path) -> None:
    command = ("harness.cli.hotpotqa_runs", str(IMPORTABLE[0]), str(tmp_path / "run"))
    first = run_module(*command)
    assert first.returncode == 0, first.stderr
    written = read_trials(tmp_path / "run")
    assert first.stdout.startswith(f"wrote {len(written)} records") and written
    again = run_module(*command)
    assert again.returncode == 2 and again.stderr.startswith("error: ") and "is not empty" in again.stderr
    assert read_trials(tmp_path / "run") == written


def test_the_command_refuses_a_folder_holding_other_files(tmp_path: Path) -> None:
    """'the HotpotQA published-log converter writes into a non-empty folder': refused, the folder untouched."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "summary.md").write_text("mine\n")
    result = run_module("harness.cli.hotpotqa_runs", str(IMPORTABLE[0]), str(folder))
    assert result.returncode == 2 and f"error: {folder} is not empty" in result.stderr, result.stderr
    assert [p.name for p in folder.iterdir()] == ["summary.md"]
