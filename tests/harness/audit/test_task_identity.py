"""The published HumanEval and HotpotQA reflections labelled against their own task, from the task alone."""

from __future__ import annotations

from harness.audit.audit_html import audit_groups
from harness.audit.published import PublishedTask
from harness.audit.task_identity import source_identity
from harness.audit.task_rrr import task_rrrs
from harness.domains.hotpotqa.questions import load_questions
from harness.domains.humaneval.identity import RULE

KENT_BAER = next(q for q in load_questions() if "Kent Baer" in q.question)


def _task(domain: str, task_id: str, reflections: list[str]) -> PublishedTask:
    return PublishedTask(
        domain=domain, source="runs/x", task_id=task_id, reflections=reflections, solved=False, trial_solved=None,
        trials=None,
    )  # fmt: skip


def test_humaneval_ids_of_both_layouts_and_frozen_tasks_are_counted() -> None:
    same = "longest() returns the last of the equally long strings instead of the first one."
    tasks = [
        _task("humaneval-py", "HumanEval/12", [same, same, same]),  # RRR 1: frozen
        _task("humaneval-rs", "HumanEval_12_longest", ["My separate_paren_groups ignored paren_string's spaces."]),
        _task("humaneval-py", "HumanEval/12", []),
    ]
    known: dict = {}
    found = source_identity("runs/x", "humaneval-py", tasks, task_rrrs(tasks), known)
    assert found is not None and found.rule == RULE
    assert (found.tasks_labelled, found.tasks_unknown) == (2, 0)
    assert (found.identity.on_task, found.identity.off_task, found.identity.vacuous) == (3, 1, 0)
    assert found.frozen_identity.reflections == 3 and len(known) == 2  # the same text labelled once


def test_hotpotqa_tasks_are_their_questions_and_an_unshipped_question_is_counted_apart() -> None:
    tasks = [
        _task("hotpotqa", KENT_BAER.question.strip(), ["I looked up Kent Baer's home stadium."]),
        _task("hotpotqa", "Which river is longest?", ["I should search the Nile River."]),
    ]
    found = source_identity("runs/x", "hotpotqa", tasks, task_rrrs(tasks), {})
    assert found is not None and (found.tasks_labelled, found.tasks_unknown) == (1, 1)
    assert found.identity.on_task == 1 == found.identity.reflections
    assert source_identity("runs/x", "webshop", tasks, task_rrrs(tasks), {}) is None


def test_audit_html_shows_their_labels() -> None:
    tasks = [_task("hotpotqa", KENT_BAER.question.strip(), ["I looked up Kent Baer's home stadium."])]
    (group,) = audit_groups([("runs/x", "hotpotqa", tasks)], {})
    (entry,) = group.entries
    assert entry.identity is not None and entry.identity.label == "on_task"
