"""Discovery: every file in MANIFEST.tsv belongs to exactly one source; unreadable ones are listed with a reason."""

from __future__ import annotations

import json
import os
import pickle
from collections import Counter
from pathlib import Path

import pytest

from harness.audit.sources import (
    DEFAULT_ROOT,
    PublishedSource,
    SkippedSourceError,
    UnknownSourceError,
    discover_sources,
    get_source,
    load_source,
)

LOGS = Path(__file__).resolve().parents[3] / "data" / "reflexion-logs"
HOTPOT = "hotpotqa_runs/root"
CEFDB = "_other_commits/cefdb0ed53cfad4b95871a8060967cab99fb6b70/hotpotqa_runs/root"
PROGRAMMING_OLD = "_other_commits/245fd1190147e464c847e4c385f8c9e88f41562a/programming_runs"

# Every source no importer can read as reflections, with its format and a phrase of its reason.
SKIPPED = {
    f"{PROGRAMMING_OLD}/root/reflexion_mbpp_py_logs": ("programming_console_log", "console transcript"),
    f"{PROGRAMMING_OLD}/root/reflexion_mbpp_py_logs2": ("programming_console_log", "console transcript"),
    f"{PROGRAMMING_OLD}/simple_mbpp_py2_logs": ("programming_console_log", "console transcript"),
    f"{PROGRAMMING_OLD}/simple_mbpp_py_logs": ("programming_console_log", "console transcript"),
    "_other_commits/5c151a69b82e68f20318beee9f58f884b77f1b41/hotpotqa_runs/root/ReAct/claude/reflexion/agents": (
        "hotpotqa_agent_pickles",
        "truncated or corrupt",
    ),
    f"{CEFDB}/CoT/context/base_gpt-3.5-turbo/100_questions_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/CoT/context/base_gpt4/100_questions_5_trials_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/CoT/context/reflexion/100_questions_0_trials_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/CoT/context/reflexion_gpt-3.5-turbo/100_questions_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/CoT/context/reflexion_gpt4/100_questions_5_trials_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/ReAct/reflexion_gpt-3.5-turbo/100_questions_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/ReAct/reflexion_gpt-3.5-turbo_old/100_questions_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/ReAct/reflexion_gpt-4/100_questions_results.json": ("hotpotqa_results_json", "counts only"),
    f"{CEFDB}/ReAct/reflexion_gpt-4_old/100_questions_results.json": ("hotpotqa_results_json", "counts only"),
    f"{HOTPOT}/CoT/context/last_trial/100_questions_5_trials": ("hotpotqa_agent_pickles", "react_cls.CoTAgent"),
    f"{HOTPOT}/CoT/context/last_trial/100_questions_8_trials.txt": ("hotpotqa_text", "last_trial run"),
    f"{HOTPOT}/CoT/context/reflexion/100_questions_5_trials.txt": ("hotpotqa_text", "prints no reflections"),
    f"{HOTPOT}/CoT/context/reflexion/100_questions_8_trials.txt": ("hotpotqa_text", "prints no reflections"),
    f"{HOTPOT}/CoT/context/reflexion/appendix_cot_context.txt": ("hotpotqa_text", "appendix"),
    f"{HOTPOT}/CoT/no_context/last_trial/100_questions_6_trials": ("hotpotqa_agent_pickles", "react_cls.CoTAgent"),
    f"{HOTPOT}/CoT/no_context/last_trial/100_questions_6_trials.txt": ("hotpotqa_text", "last_trial run"),
    f"{HOTPOT}/CoT/no_context/reflexion/appendix_cot_no_context.txt": ("hotpotqa_text", "appendix"),
    f"{HOTPOT}/ReAct/base/base_agents.joblib": ("hotpotqa_dicts", "react.ReactReflectAgent"),
    f"{HOTPOT}/ReAct/base/base_react_thought_log.txt": ("hotpotqa_text", "Correct answer:"),
    f"{HOTPOT}/ReAct/last_trial/react_incorrect_dicts_trial_0.joblib": ("hotpotqa_dicts", "last_trial run"),
    f"{HOTPOT}/ReAct/reflexion/agent_dicts": ("hotpotqa_dicts", "langchain.prompts.prompt.PromptTemplate"),
    f"{HOTPOT}/appendix.txt": ("hotpotqa_text", "appendix"),
}


@pytest.fixture(scope="module")
def sources() -> list[PublishedSource]:
    return discover_sources()


def test_default_root_is_the_shipped_logs() -> None:
    assert DEFAULT_ROOT == LOGS


def test_every_manifest_file_is_in_exactly_one_source(sources: list[PublishedSource]) -> None:
    lines = (LOGS / "MANIFEST.tsv").read_text().splitlines()
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    manifest = [row[header.index("path")] for row in rows]
    covered = Counter(file for source in sources for file in source.files)
    assert len(manifest) == 324
    assert set(covered) == set(manifest)
    assert set(covered.values()) == {1}


def test_sources_by_format(sources: list[PublishedSource]) -> None:
    readable = Counter(s.format for s in sources if s.skip_reason is None)
    assert readable == {"programming_jsonl": 42, "hotpotqa_text": 16, "env_results": 6, "hotpotqa_dicts": 6}
    assert len(sources) == 97
    assert [s.name for s in sources] == sorted(s.name for s in sources)


def test_skipped_sources_say_why(sources: list[PublishedSource]) -> None:
    skipped = {s.name: s for s in sources if s.skip_reason is not None}
    assert skipped.keys() == SKIPPED.keys()
    for name, (format_, phrase) in SKIPPED.items():
        assert skipped[name].format == format_
        assert phrase in skipped[name].skip_reason
        assert skipped[name].loader is None
        with pytest.raises(SkippedSourceError, match=phrase):
            load_source(skipped[name])


def test_per_question_pickle_folders_are_one_source(sources: list[PublishedSource]) -> None:
    folder = next(s for s in sources if s.name == f"{HOTPOT}/CoT/no_context/last_trial/100_questions_6_trials")
    assert len(folder.files) == 100 and folder.skip_reason.startswith("100 pickled agent object(s)")


def test_every_readable_source_loads(sources: list[PublishedSource]) -> None:
    totals = Counter()
    for source in sources:
        if source.skip_reason is not None:
            continue
        tasks = load_source(source)
        assert tasks, source.name
        assert {(t.source, t.domain) for t in tasks} == {(source.name, source.domain)}
        totals["tasks"] += len(tasks)
        totals["reflecting"] += sum(bool(t.reflections) for t in tasks)
    assert totals == {"tasks": 7570, "reflecting": 2071}


def test_domains(sources: list[PublishedSource]) -> None:
    by_name = {s.name: s.domain for s in sources}
    assert by_name["alfworld_runs/root/reflexion_run_logs"] == "alfworld"
    assert by_name["webshop_runs/reflexion_run_logs_1"] == "webshop"
    assert by_name["programming_runs/root/simple_rust_run/simple_1_gpt-4_pass_at_k_1_rs.jsonl"] == "humaneval-rs"
    assert by_name[f"{PROGRAMMING_OLD}/simple_mbpp_py2_logs"] == "mbpp-py"
    assert Counter(s.domain for s in sources if s.format.startswith("hotpotqa")) == {"hotpotqa": 45}


def test_a_source_is_found_by_its_name() -> None:
    source = get_source("alfworld_runs/root/reflexion_run_logs/")
    assert source.format == "env_results" and len(source.files) == 15
    with pytest.raises(UnknownSourceError, match="Closest: alfworld_runs/root/reflexion_run_logs"):
        get_source("alfworld_runs/root/reflexion_run_log")


class _RunsSystem:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple:
        return (os.system, (self.command,))


def test_discovery_refuses_a_malicious_pickle_without_running_it(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    run = tmp_path / "hotpotqa_runs" / "root" / "ReAct" / "reflexion"
    run.mkdir(parents=True)
    (run / "evil_dicts.joblib").write_bytes(pickle.dumps(_RunsSystem(f"touch {marker}"), protocol=4))
    (run / "good_dicts.joblib").write_bytes(
        pickle.dumps([{"question": "Q?", "key": "A", "answer": "a", "reflections": "['r']"}], protocol=4)
    )
    envs = tmp_path / "alfworld_runs" / "mine"
    envs.mkdir(parents=True)
    (envs / "env_results_trial_0.json").write_text(json.dumps([{"name": "env_0", "memory": [], "is_success": True}]))
    (tmp_path / "notes.md").write_text("not a run")

    sources = {s.name: s for s in discover_sources(tmp_path)}
    assert sources.keys() == {
        "alfworld_runs/mine",
        "hotpotqa_runs/root/ReAct/reflexion/evil_dicts.joblib",
        "hotpotqa_runs/root/ReAct/reflexion/good_dicts.joblib",
        "notes.md",
    }
    evil = sources["hotpotqa_runs/root/ReAct/reflexion/evil_dicts.joblib"]
    assert f"{os.system.__module__}.system" in evil.skip_reason
    assert not marker.exists()
    assert sources["notes.md"].skip_reason == "no importer recognises this file"
    [task] = load_source(sources["hotpotqa_runs/root/ReAct/reflexion/good_dicts.joblib"])
    assert (task.task_id, task.reflections, task.solved, task.trials) == ("Q?", ["r"], True, None)
    [env] = load_source(sources["alfworld_runs/mine"])
    assert (env.domain, env.solved, env.trial_solved) == ("alfworld", True, 0)


def test_unreadable_files_are_listed_with_the_reason(tmp_path: Path) -> None:
    bad_jsonl = tmp_path / "programming_runs" / "root" / "reflexion_mbpp_py" / "mbpp-py._reflexion_py.jsonl"
    bad_jsonl.parent.mkdir(parents=True)
    bad_jsonl.write_text("{not json\n")
    stray_log = tmp_path / "hotpotqa_runs" / "root" / "ReAct" / "log.txt"
    stray_log.parent.mkdir(parents=True)
    stray_log.write_text("------------- BEGIN CORRECT AGENTS -------------\n\nQuestion: Q?\nCorrect answer: A\n")

    sources = {s.name: s for s in discover_sources(tmp_path)}
    jsonl = sources["programming_runs/root/reflexion_mbpp_py/mbpp-py._reflexion_py.jsonl"]
    assert (jsonl.domain, jsonl.format) == ("mbpp-py", "programming_jsonl")
    assert jsonl.skip_reason is None
    with pytest.raises(ValueError, match="line 1 is not JSON"):
        load_source(jsonl)
    assert "no folder named after a Reflexion strategy" in sources["hotpotqa_runs/root/ReAct/log.txt"].skip_reason
