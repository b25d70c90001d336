"""The behavioural channel, played live once and replayed from its cache (configs/experiment/hotpotqa_insights_plant.yaml,
tests/fixtures/insights_plant/): the planted reflection is in its training task's memory and actor prompts, never in
a critique request; the library, its provenance and its evaluation are recorded, shown in the report, and a killed
library resumes from insights.jsonl without losing or repeating a critique."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path

from harness.records.insights_log import EVALUATION_FILE, INSIGHTS_FILE, CritiqueAnswered, LibraryOpened, read_insights
from harness.records.trial import read_manifest, read_trials
from harness.reflection.insights import rules_message, run_libraries
from tests.finished_runs import INSIGHTS_PLANT, documented_overrides
from tests.in_process import run_in_process, run_module
from tests.runner import ROOT

CACHE = ROOT / "tests" / "fixtures" / "insights_plant" / "llm_cache.jsonl"


def _plant(run: Path) -> tuple[str, str]:
    manifest = read_manifest(run)
    assert manifest is not None
    plant = manifest.config["insights"]["plant"]
    return plant["task"], plant["reflection"]


def _requests() -> list[dict]:
    return [json.loads(line)["request"] for line in CACHE.read_text().splitlines()]


def test_the_library_names_its_tasks_its_plant_and_every_rules_history(insights_plant_run: Path) -> None:
    task, text = _plant(insights_plant_run)
    lines = read_insights(insights_plant_run)
    [opened] = [line for line in lines if isinstance(line, LibraryOpened)]
    assert opened.plant is not None and (opened.plant.task, opened.plant.reflection) == (task, text)
    assert opened.plant.in_training and task in opened.training_tasks
    assert (len(opened.training_tasks), len(opened.evaluation_tasks), opened.read_reflections) == (4, 2, False)
    critiques = [line for line in lines if isinstance(line, CritiqueAnswered)]
    assert [c.step for c in critiques] == list(range(opened.critiques)) and critiques
    [(_, ledger)] = run_libraries(insights_plant_run)
    assert len(ledger.steps) == opened.critiques
    answers = {c.raw_answer for c in critiques}
    for rule in [*ledger.rules, *ledger.dropped]:
        assert rule.changes and sum(change.delta for change in rule.changes) == rule.count
        for change in rule.changes:
            assert change.raw_answer in answers and set(change.critique.tasks) <= set(opened.training_tasks)
            assert change.critique.reflections == []  # read_reflections off: no reflection was shown


def test_the_plant_reaches_its_tasks_prompts_and_no_critique(insights_plant_run: Path) -> None:
    task, text = _plant(insights_plant_run)
    records = read_trials(insights_plant_run)
    planted = [r for r in records if r.task_id == task]
    assert planted and all(r.memory[:1] == [text] for r in planted)
    assert not any(text in m for r in records if r.task_id != task for m in r.memory)
    requests = _requests()
    prompts = [r["prompt"] for r in requests if r["kind"] == "completion"]
    question = planted[0].task_text
    assert sum(text in p for p in prompts if question in p) >= 2 * len(planted)  # a thought and an action per trial
    assert all(question in p for p in prompts if text in p)
    critiques = [line for line in read_insights(insights_plant_run) if isinstance(line, CritiqueAnswered)]
    assert all(text not in c.request for c in critiques)
    chats = [m["content"] for r in requests if r["kind"] == "chat" for m in r["messages"]]
    assert len(chats) == len(critiques) and not any(text in chat for chat in chats)


def test_the_evaluation_reads_the_final_library_before_each_question(insights_plant_run: Path) -> None:
    [(opened, ledger)] = run_libraries(insights_plant_run)
    evaluation = read_trials(insights_plant_run, EVALUATION_FILE)
    assert sorted(r.task_id for r in evaluation) == sorted(opened.evaluation_tasks)
    assert all(r.trial == 0 and r.memory == [] and r.reflection is None for r in evaluation)
    message = rules_message([rule.text for rule in ledger.rules], "hotpotqa").rstrip("\n")
    prompts = [r["prompt"] for r in _requests() if r["kind"] == "completion"]
    for record in evaluation:
        assert any(message in p and record.task_text in p for p in prompts)


def test_the_report_shows_each_rule_as_text(insights_plant_run: Path) -> None:
    [(opened, ledger)] = run_libraries(insights_plant_run)
    markdown = (insights_plant_run / "report.md").read_text()
    page = (insights_plant_run / "report.html").read_text()
    assert "## Rule libraries" in markdown and "Rule libraries" in page
    for rule in ledger.rules:
        assert html.escape(rule.text, quote=False) in page
    assert opened.plant is not None and html.escape(opened.plant.reflection, quote=False) in page


def test_a_rule_with_markup_stays_text(insights_plant_run: Path, copy_run: Callable[[Path], Path]) -> None:
    run = copy_run(insights_plant_run)
    marked = "Never trust <script>alert(1)</script> or [a link](http://x) or **bold** text."
    lines = [json.loads(line) for line in (run / INSIGHTS_FILE).read_text().splitlines()]
    lines[1]["raw_answer"] = f"ADD 1: {marked}"
    (run / INSIGHTS_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_module("harness.cli.report", str(run), "--format", "md,html", "--no-plots")
    assert result.returncode == 0, result.stderr
    page = (run / "report.html").read_text()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="http://x"' not in page


def test_a_killed_library_resumes_without_losing_or_repeating_a_critique(
    insights_plant_run: Path, copy_run: Callable[[Path], Path]
) -> None:
    run = copy_run(insights_plant_run)
    whole = (run / INSIGHTS_FILE).read_bytes()
    lines = whole.splitlines(keepends=True)
    # Killed after the first critique was recorded, halfway through writing the second, before any evaluation.
    (run / INSIGHTS_FILE).write_bytes(b"".join(lines[:2]) + lines[2][:40])
    (run / EVALUATION_FILE).unlink()
    result = run_in_process("progress=false", *documented_overrides(INSIGHTS_PLANT), f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr[-3000:]
    assert (run / INSIGHTS_FILE).read_bytes() == whole
    assert [r.key for r in read_trials(run, EVALUATION_FILE)] == [
        r.key for r in read_trials(insights_plant_run, EVALUATION_FILE)
    ]
