"""An empty or whitespace reflection is vacuous, not a repetition: it repeats nothing and nothing repeats it, so a
chain of them is not frozen and a held-out selection does not choose its task (difflib's ratio of two empty strings
is 1.0)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness.metrics.core import most_similar_earlier, reflection_repetition_rate, similarity
from harness.metrics.curves import threshold_curves
from harness.run.held_out import frozen_in_run
from harness.metrics.semantic import blank_rows_zeroed, semantic_repetition_rate
from harness.metrics.thresholds import DEFAULT_THRESHOLDS
from harness.records import TrialLog
from tests.harness.factories import make_record

PLAN = "Go to cabinet 1, take the SaltShaker, put it in cabinet 2."
BLANKS = ["", " ", "\n", "  \n\t"]


def test_empty_reflections_do_not_count_as_repeats() -> None:
    assert [reflection_repetition_rate([blank, blank]) for blank in BLANKS] == [0.0] * len(BLANKS)
    assert reflection_repetition_rate(["", "", ""]) == 0.0
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
    assert semantic_repetition_rate(blank_rows_zeroed(np.ones((2, 4)), ["", "\n"])) == 0.0
