"""HotpotQA importers on the shipped text logs and dict pickles, cross-checked against the raw text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.audit.hotpotqa import (
    dicts_skip_reason,
    exact_match,
    load_hotpotqa_dicts,
    load_hotpotqa_log,
    parse_text_log,
    run_strategy,
    text_log_skip_reason,
)
from harness.audit.safe_pickle import UnsafePickleError

LOGS = Path(__file__).resolve().parents[3] / "data" / "reflexion-logs"
HOTPOT = LOGS / "hotpotqa_runs" / "root"
CEFDB = LOGS / "_other_commits/cefdb0ed53cfad4b95871a8060967cab99fb6b70/hotpotqa_runs/root"
CLAUDE = LOGS / "_other_commits/5c151a69b82e68f20318beee9f58f884b77f1b41/hotpotqa_runs/root/ReAct/claude/reflexion"

REACT_5 = HOTPOT / "ReAct/reflexion/100_questions_5_trials.txt"
CHRONICLE = "What year did The Chronicle of Philanthropy's publishing overlap with Antic?"

# (log, questions, questions with >= 1 reflection, solved)
TEXT_LOGS = [
    (REACT_5, 100, 67, 51),
    (HOTPOT / "ReAct/reflexion/100_questions_7_trials.txt", 100, 67, 53),
    (HOTPOT / "ReAct/reflexion/100_questions_trials_6_to_7.txt", 99, 66, 53),
    (HOTPOT / "ReAct/reflexion/50_sample_react_reflect_correct.txt", 17, 6, 17),
    (HOTPOT / "ReAct/base/100_questions_5_trials.txt", 100, 0, 34),
    (HOTPOT / "CoT/no_context/reflexion/100_questions_5_trials.txt", 100, 68, 40),
    (HOTPOT / "CoT/no_context/base/100_questions_5_trials.txt", 100, 0, 33),
    (HOTPOT / "CoT/no_context/last_trial_and_reflexion/100_questions_5_trials.txt", 100, 69, 35),
    (HOTPOT / "CoT/context/last_trial_and_reflexion/100_questions_5_trials.txt", 100, 37, 74),
    (CEFDB / "CoT/context/reflexion_gpt4/100_questions_5_trials.txt", 100, 32, 80),
    (CEFDB / "CoT/context/reflexion_gpt-3.5-turbo/100_questions_8_trials.txt", 100, 43, 71),
    (CLAUDE / "100_questions_5_trials.txt", 100, 74, 32),
]


@pytest.mark.parametrize(("path", "n_questions", "n_reflecting", "n_solved"), TEXT_LOGS)
def test_text_logs(path: Path, n_questions: int, n_reflecting: int, n_solved: int) -> None:
    tasks = load_hotpotqa_log(path, "name")
    assert len(tasks) == len({t.task_id for t in tasks}) == n_questions
    assert sum(bool(t.reflections) for t in tasks) == n_reflecting
    assert sum(t.solved for t in tasks) == n_solved
    summaries = re.findall(r"^Trial summary: Correct: (\d+)", path.read_text(), re.MULTILINE)
    if summaries:
        # The log's own count for its last trial.
        assert n_solved == int(summaries[-1])
    assert {(t.domain, t.source) for t in tasks} == {("hotpotqa", "name")}


def test_question_count_from_the_raw_first_trial() -> None:
    first_trial = REACT_5.read_text().split("BEGIN TRIAL 2")[0]
    raw = {line.removeprefix("Question:").strip() for line in first_trial.splitlines() if line.startswith("Question:")}
    assert {t.task_id for t in load_hotpotqa_log(REACT_5)} == raw


def test_a_question_keeps_all_its_reflections() -> None:
    task = next(t for t in load_hotpotqa_log(REACT_5) if t.task_id == CHRONICLE)
    # Raw: the bullets under the last `Reflections:` printed for this question.
    text = REACT_5.read_text()
    after = text[text.rindex(f"Question: {CHRONICLE}") :].split("Reflections:\n", 1)[1]
    bullets = [line for line in after.splitlines()[:20] if line.startswith("- ")]
    assert len(task.reflections) == len(bullets) == 6
    assert task.reflections[0].startswith("I assumed that the publishing of The Chronicle of Philanthropy")
    assert task.reflections[2].startswith("To answer the question, I will search")
    assert (task.solved, task.trial_solved, task.trials) == (False, None, 5)


def test_trial_solved_counts_from_zero() -> None:
    task = next(t for t in load_hotpotqa_log(REACT_5) if t.task_id.startswith("Which restaurant chain's headquarters"))
    # First printed under CORRECT AGENTS in trial 4 of the log.
    assert (task.solved, task.trial_solved, task.trials, len(task.reflections)) == (True, 3, 4, 4)


def test_a_log_that_starts_mid_run_cannot_date_earlier_solutions() -> None:
    tasks = load_hotpotqa_log(HOTPOT / "ReAct/reflexion/100_questions_trials_6_to_7.txt")
    assert all(t.trial_solved is None for t in tasks)
    assert {t.trials for t in tasks if not t.solved} == {7}
    assert {t.trials for t in tasks if t.solved} == {None}


def test_replaced_memory_is_rebuilt_from_every_trial() -> None:
    # last_trial_and_reflexion shows only the newest reflection; one is written per failed trial.
    tasks = load_hotpotqa_log(HOTPOT / "CoT/no_context/last_trial_and_reflexion/100_questions_5_trials.txt")
    assert all(len(t.reflections) == t.trials - 1 for t in tasks)
    assert sum(not t.solved for t in tasks) == 65
    assert {len(t.reflections) for t in tasks if not t.solved} == {5}


def test_text_log_agrees_with_the_dicts_of_the_same_run() -> None:
    text = {t.task_id: t for t in load_hotpotqa_log(HOTPOT / "CoT/no_context/reflexion/100_questions_5_trials.txt")}
    dicts = {
        t.task_id: t
        for t in load_hotpotqa_dicts(
            HOTPOT / "CoT/no_context/reflexion/cot_reflect_no_context_40_correct_dicts-5-trials.joblib"
        )
    }
    assert text.keys() == dicts.keys()
    for question, task in text.items():
        other = dicts[question]
        assert (task.reflections, task.solved, task.trial_solved, task.trials) == (
            other.reflections,
            other.solved,
            other.trial_solved,
            other.trials,
        )


# (dicts file, agents, agents with >= 1 reflection, solved, trials known)
DICTS = [
    ("CoT/context/reflexion/cot_reflect_50_correct_dicts-8-trials.joblib", 100, 39, 75, True),
    ("CoT/no_context/base/cot_33_correct_dicts-5-trials.joblib", 100, 0, 33, True),
    ("CoT/no_context/reflexion/cot_reflect_no_context_40_correct_dicts-5-trials.joblib", 100, 68, 40, True),
    ("ReAct/base/base_react_dicts.joblib", 100, 0, 33, False),
    ("ReAct/reflexion/react_reflect_50_correct_dicts.joblib", 17, 6, 17, False),
    ("ReAct/reflexion/react_reflect_dicts.joblib", 10, 4, 6, False),
]


@pytest.mark.parametrize(("name", "n_agents", "n_reflecting", "n_solved", "trials_known"), DICTS)
def test_dicts(name: str, n_agents: int, n_reflecting: int, n_solved: int, trials_known: bool) -> None:
    tasks = load_hotpotqa_dicts(HOTPOT / name, name)
    assert len(tasks) == n_agents
    assert sum(bool(t.reflections) for t in tasks) == n_reflecting
    assert sum(t.solved for t in tasks) == n_solved
    assert all((t.trials is not None) == trials_known for t in tasks)


def test_cot_dicts_count_trials_like_the_text_log_of_their_run() -> None:
    # The 8-trial CoT-with-context log prints no reflections; its dicts hold them. Despite "50_correct"
    # in the file name, 75 agents are correct, as the log's last trial says.
    dicts = load_hotpotqa_dicts(HOTPOT / "CoT/context/reflexion/cot_reflect_50_correct_dicts-8-trials.joblib")
    attempts = parse_text_log((HOTPOT / "CoT/context/reflexion/100_questions_8_trials.txt").read_text())
    first_correct: dict[str, int] = {}
    for attempt in attempts:
        if attempt.status == "CORRECT":
            first_correct.setdefault(attempt.question, attempt.trial)
    for task in dicts:
        assert task.trials == first_correct.get(task.task_id, 8)
        assert len(task.reflections) == task.trials - 1


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        (HOTPOT / "CoT/context/last_trial/100_questions_8_trials.txt", "last_trial run"),
        (HOTPOT / "CoT/context/reflexion/100_questions_5_trials.txt", "prints no reflections"),
        (HOTPOT / "CoT/context/reflexion/100_questions_8_trials.txt", "prints no reflections"),
        (HOTPOT / "appendix.txt", "appendix"),
        (HOTPOT / "ReAct/base/base_react_thought_log.txt", "Correct answer:"),
    ],
)
def test_text_files_without_reflections_are_refused(path: Path, reason: str) -> None:
    assert reason in (text_log_skip_reason(path) or "")
    with pytest.raises(ValueError, match=reason):
        load_hotpotqa_log(path)


def test_agent_pickles_are_refused_not_run() -> None:
    assert "react.ReactReflectAgent" in (dicts_skip_reason(HOTPOT / "ReAct/base/base_agents.joblib") or "")
    with pytest.raises(UnsafePickleError, match="langchain.prompts.prompt.PromptTemplate"):
        load_hotpotqa_dicts(HOTPOT / "ReAct/reflexion/agent_dicts")


def test_last_trial_dicts_are_refused() -> None:
    path = HOTPOT / "ReAct/last_trial/react_incorrect_dicts_trial_0.joblib"
    assert "last_trial" in (dicts_skip_reason(path) or "")
    with pytest.raises(ValueError, match="last_trial"):
        load_hotpotqa_dicts(path)


def test_strategy_from_the_nearest_folder() -> None:
    assert run_strategy(CEFDB / "CoT/context/reflexion_gpt-3.5-turbo/x.txt") == "reflexion"
    assert run_strategy(HOTPOT / "CoT/context/last_trial_and_reflexion/x.txt") == "last_trial_and_reflexion"
    assert run_strategy(HOTPOT / "CoT/context/last_trial/100_questions_5_trials/0.joblib") == "last_trial"
    assert run_strategy(CEFDB / "CoT/context/base_gpt4/x.txt") == "base"


def test_exact_match_is_reflexions_normalisation() -> None:
    assert exact_match("The Beatles!", "beatles")
    assert exact_match("  Bath,  Maine ", "bath maine")
    assert not exact_match("GmbH", "Gesellschaft mit beschränkter Haftung")
