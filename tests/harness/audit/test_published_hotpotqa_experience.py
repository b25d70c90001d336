"""The published HotpotQA CoT logs as the insight stage's experience (issue 41, item 3): each question's logged
trials, their outcomes and the reflection written after each, read without replaying; the critic's compare
requests built from them carry the published reflection only with insights.read_reflections."""

from __future__ import annotations

import random

import pytest

from harness.audit.hotpotqa_runs import PublishedLogError
from harness.audit.published_experience import published_hotpotqa_experience
from harness.reflection.insights import InsightsOptions, critique_messages, plan_critiques
from tests.runner import ROOT

COT = ROOT / "data" / "reflexion-logs" / "hotpotqa_runs" / "root" / "CoT"
REFLEXION_LOG = COT / "no_context" / "reflexion" / "100_questions_5_trials.txt"


def test_each_question_is_its_logged_trials_without_its_question_or_memory() -> None:
    tasks = published_hotpotqa_experience(REFLEXION_LOG)
    assert len(tasks) == 100 and len({t.id for t in tasks}) == 100
    for task in tasks:
        assert task.trials[-1].reflection is None or not task.trials[-1].success
        for trial in task.trials:
            assert trial.trajectory.startswith("Thought:") and task.task not in trial.trajectory
            assert "Observation: Answer is " + ("CORRECT" if trial.success else "INCORRECT") in trial.trajectory
            assert not any(t.reflection and t.reflection[:60] in trial.trajectory for t in task.trials)
        # A reflection follows each failed trial but the last one played; a success ends the task's trials.
        assert all(t.reflection for t in task.trials[:-1]) and all(not t.success for t in task.trials[:-1])
    assert sum(1 for t in tasks if t.trials[-1].success and len(t.trials) > 1) == 8


def test_the_compare_requests_show_the_published_reflection_only_when_asked() -> None:
    tasks = published_hotpotqa_experience(REFLEXION_LOG)
    solved_late = [t for t in tasks if t.trials[-1].success and len(t.trials) > 1]
    for read in (False, True):
        planned = plan_critiques(tasks, "hotpotqa", random.Random(0), InsightsOptions(read_reflections=read))
        compares = [p for p in planned if p.critique.kind == "compare"]
        assert len(compares) == sum(len(t.trials) - 1 for t in solved_late)
        for item in compares:
            task = next(t for t in tasks if t.id == item.critique.tasks[0])
            failed = task.trials[item.critique.trials[1].trial]
            request = "\n".join(m.content for m in critique_messages(item, [], "hotpotqa", 20))
            assert failed.trajectory in request and task.trials[-1].trajectory in request
            assert (failed.reflection in request) is read


def test_a_log_that_holds_no_reflections_is_refused_in_one_sentence() -> None:
    with pytest.raises(PublishedLogError, match="last_trial run: its memory is the previous attempt's trace"):
        published_hotpotqa_experience(COT / "no_context" / "last_trial" / "100_questions_6_trials.txt")
