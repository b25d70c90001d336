"""Programming importer: the shipped `*.jsonl` runs, cross-checked by counting raw lines and strings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.audit.programming import load_programming_run, path_domain, run_domain

LOGS = Path(__file__).resolve().parents[3] / "data" / "reflexion-logs"
OTHER = "_other_commits/245fd1190147e464c847e4c385f8c9e88f41562a/programming_runs/root"

# (file, domain, tasks, tasks with >= 1 reflection, solved), counted from the raw files.
RUNS = [
    (
        "programming_runs/root/reflexion_humaneval_py_pass_at_1/reflexion_humaneval_py_pass_at_1.jsonl",
        "humaneval-py",
        164,
        30,
        150,
    ),
    (
        "programming_runs/root/reflexion_mbpp_rs/mbpp-rs._reflexion_5_gpt-4_pass_at_k_1_rs.jsonl",
        "mbpp-rs",
        354,
        126,
        268,
    ),
    (
        (
            "programming_runs/root/reflexion_leetcode_rs_gpt4_react_constraints_visible/"
            "leetcode-hard-rs-40-uncontaminated_tests._reflexion_5_gpt-4_pass_at_k_1_rs.jsonl"
        ),
        "leetcode-rs",
        40,
        20,
        2,
    ),
    # The folder names neither dataset nor language; MultiPL-E rows (`name`, `language`) do.
    (
        "programming_runs/root/reflexion_plays_with_the_ferris_crab/reflexion_5_gpt-4_pass_at_k_1_rs.jsonl",
        "humaneval-rs",
        156,
        59,
        137,
    ),
    # No `reflections` key at all: the simple strategy never reflects. OpenAI ids say Python.
    ("programming_runs/root/simple_test_run/simple_1_gpt-4_pass_at_k_1.jsonl", "humaneval-py", 164, 0, 134),
    (
        f"{OTHER}/reflexion_ucs_plays_with_the_python_interpreter/reflexion-ucs_5_gpt-4_pass_at_k_1_py.jsonl",
        "humaneval-py",
        73,
        21,
        20,
    ),
]


@pytest.mark.parametrize(("name", "domain", "n_tasks", "n_reflecting", "n_solved"), RUNS)
def test_real_runs(name: str, domain: str, n_tasks: int, n_reflecting: int, n_solved: int) -> None:
    tasks = load_programming_run(LOGS / name, name)
    lines = [line for line in (LOGS / name).read_text().splitlines() if line.strip()]
    assert len(tasks) == len(lines) == n_tasks
    # The files are json.dumps output: an empty list is written exactly as `"reflections": []`.
    raw_reflecting = sum('"reflections": [' in line and '"reflections": []' not in line for line in lines)
    assert sum(bool(t.reflections) for t in tasks) == raw_reflecting == n_reflecting
    assert sum(t.solved for t in tasks) == sum('"is_solved": true' in line for line in lines) == n_solved
    assert {t.domain for t in tasks} == {domain}
    assert {t.source for t in tasks} == {name}
    assert all(t.trials is None and t.trial_solved is None for t in tasks)


def test_a_task_keeps_its_reflections_in_order() -> None:
    name = "programming_runs/root/reflexion_mbpp_rs/mbpp-rs._reflexion_5_gpt-4_pass_at_k_1_rs.jsonl"
    task = next(t for t in load_programming_run(LOGS / name) if t.task_id == "mbpp_765_is_polite")
    assert task.solved
    assert len(task.reflections) == 3
    assert task.reflections[0].startswith("The implementation of the `is_polite` function is incorrect")
    assert task.reflections[1].startswith("The implementation of the is_polite function is incorrect")


def test_every_shipped_jsonl_has_a_domain() -> None:
    domains = {run_domain(path) for path in LOGS.rglob("*.jsonl")}
    assert domains == {"humaneval-py", "humaneval-rs", "mbpp-py", "mbpp-rs", "leetcode-py", "leetcode-rs"}


def test_domain_from_the_path_alone() -> None:
    assert path_domain(Path("reflexion_mbpp_py3/mbpp-py._reflexion_5_gpt-4_pass_at_k_1_py.jsonl")) == "mbpp-py"
    assert path_domain(Path("root/simple_human_eval_py_logging/x.jsonl")) == "humaneval-py"
    assert path_domain(Path("simple_test_run/simple_1_gpt-4_pass_at_k_1.jsonl")) is None


def _write(path: Path, rows: list[object], blank_lines: bool = False) -> Path:
    separator = "\n\n" if blank_lines else "\n"
    path.write_text(separator.join(json.dumps(row) for row in rows) + "\n")
    return path


def test_name_key_missing_reflections_and_blank_lines(tmp_path: Path) -> None:
    run = tmp_path / "simple_mbpp_rs" / "mbpp-rs._simple_1_gpt-4_pass_at_k_1_rs.jsonl"
    run.parent.mkdir()
    rows = [{"name": "mbpp_1_a", "is_solved": True}, {"name": "mbpp_2_b", "is_solved": False, "reflections": ["r"]}]
    tasks = load_programming_run(_write(run, rows, blank_lines=True))
    assert [(t.task_id, t.reflections, t.solved) for t in tasks] == [("mbpp_1_a", [], True), ("mbpp_2_b", ["r"], False)]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"task_id": "HumanEval/0", "is_solved": True}, {"task_id": "HumanEval/0", "is_solved": False}], "twice"),
        ([{"task_id": "HumanEval/0"}], "is_solved"),
        ([{"is_solved": True}], "task_id"),
        ([{"task_id": "HumanEval/0", "is_solved": True, "reflections": "not a list"}], "reflections"),
        ([["not", "an", "object"]], "not an object"),
    ],
)
def test_malformed_rows_are_refused(tmp_path: Path, rows: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_programming_run(_write(tmp_path / "humaneval_py.jsonl", rows))


def test_a_line_that_is_not_json_is_named(tmp_path: Path) -> None:
    run = tmp_path / "humaneval_py.jsonl"
    run.write_text('{"task_id": "HumanEval/0", "is_solved": true}\n{"task_id": \n')
    with pytest.raises(ValueError, match="line 2 is not JSON"):
        load_programming_run(run)
