"""An empty or whitespace reflection is vacuous, not a repetition: it repeats nothing and nothing repeats it (difflib's
ratio of two empty strings is 1.0), so a held-out selection does not choose its task; and a chain of nothing but
blank reflections is silent, its RRR undefined: neither frozen nor a healthy, unfrozen memory (issue 48)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness.metrics.core import most_similar_earlier, reflection_repetition_rate, similarity
from harness.metrics.curves import threshold_curves
from harness.run.held_out import frozen_in_run
from harness.metrics.semantic import blank_rows_zeroed, semantic_repetition_rate
from harness.metrics.thresholds import DEFAULT_THRESHOLDS
from harness.records import TrialLog
from harness.metrics.figures import Measured, report_cells
from harness.metrics.run import run_metrics
from harness.records import RunPlan
from tests.harness.factories import make_record

PLAN = "Go to cabinet 1, take the SaltShaker, put it in cabinet 2."
BLANKS = ["", " ", "\n", "  \n\t"]
TASK = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
OTHER = "pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_T2"


def test_empty_reflections_do_not_count_as_repeats_and_a_chain_of_them_has_no_rrr() -> None:
    assert [reflection_repetition_rate([blank, blank]) for blank in BLANKS] == [None] * len(BLANKS)
    assert reflection_repetition_rate(["", "", ""]) is None
    assert reflection_repetition_rate([PLAN, "", ""]) == 0.0  # one said something: it repeated nothing
    # A blank earlier reflection shares whitespace with a later one: still no similarity.
    assert similarity("a b", " ") == 0.0 and similarity(" ", "a b") == 0.0
    assert reflection_repetition_rate([PLAN, "", PLAN, ""]) == 1 / 3
    assert [m.similarity if m else None for m in most_similar_earlier(["", PLAN, "", PLAN])] == [None, 0.0, 0.0, 1.0]


def test_the_threshold_curves_count_no_blank_chain_frozen() -> None:
    curves = threshold_curves("c", {"t": [["", ""], ["\n", "\n"]]}, DEFAULT_THRESHOLDS)
    assert {point.frozen_tasks for points in (curves.similarity, curves.frozen) for point in points} == {0}


def test_the_held_out_selection_does_not_choose_a_task_for_its_empty_reflections(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    for task, memory in {"empty": ["", "", None], "repeats": [PLAN, PLAN, None]}.items():
        for trial, reflection in enumerate(memory):
            log.append(make_record(trial, reflection, task=task))
    assert frozen_in_run(tmp_path) == ["repeats"]


def test_semantic_rrr_counts_no_blank_reflection_as_a_repeat() -> None:
    # Any embedder gives two empty strings the same vector: cosine 1.
    vectors = blank_rows_zeroed(np.ones((3, 4)), ["", PLAN, PLAN])
    assert semantic_repetition_rate(vectors) == 0.5
    assert semantic_repetition_rate(blank_rows_zeroed(np.ones((2, 4)), ["", "\n"])) is None


def test_a_silent_chain_is_counted_silent_not_unfrozen() -> None:
    records = [make_record(t, blank, task=TASK) for t, blank in enumerate(["", " ", "\n"])]
    records += [make_record(t, text, task=OTHER) for t, text in enumerate([PLAN, "Open the fridge.", PLAN])]
    plan = RunPlan(conditions=["self_diagnosis"], tasks=[TASK, OTHER], trials=3)
    (report,) = run_metrics(records, plan, {TASK: "Mug", OTHER: "SaltShaker"}).conditions
    totals = report.totals
    # Before, the silent task counted as a defined RRR of 0: frozen 1 of 2, half the memories "healthy".
    assert (totals.rrr_defined, totals.frozen, totals.frozen_share) == (1, 1, 1.0)
    assert [task.figures["silent"] for task in report.tasks] == [1.0, 0.0]
    assert report.figures["silent"] == 0.5
    # The condition table's frozen cell says so beside the share it stands outside of.
    assert "1/1 (100%); 1 silent" in report_cells(Measured(report.totals, report.tasks))
