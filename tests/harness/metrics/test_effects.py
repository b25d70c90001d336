"""Effects from records: per-task values pooled over repeats (never counted as tasks), RRR per repeat's chain, the
on-task rate from identity labels, the control's absence, and a planted difference found with Holm across
conditions."""

from __future__ import annotations

import pytest

from harness.metrics.effects import effects, group_chains, merge_chains, task_values
from harness.records import TrialRecord
from harness.records.identity import ReflectionIdentity
from tests.harness.factories import make_record


def record(task: str, condition: str, trial: int, reflection: str | None, success: bool = False, repeat: int = 0,
           label: str | None = None) -> TrialRecord:  # fmt: skip
    identity = ReflectionIdentity(label=label, rule="test/1") if label else None
    base = make_record(trial, reflection, success, task=task, condition=condition)
    return base.model_copy(update={"repeat": repeat, "reflection_identity": identity})


SAME = "go to cabinet 1 and take the saltshaker, then put it in cabinet 2"
OTHER = "the drawer held nothing; next time open the fridge first and look for an apple"
THIRD = "I looked in the wrong room for a long time; search the countertop sinkbasin and stove"


def test_repeats_pool_per_task_and_rrr_is_measured_per_repeat() -> None:
    records = [
        record("t", "self_diagnosis", 0, SAME, repeat=0),
        record("t", "self_diagnosis", 1, SAME, repeat=0),
        record("t", "self_diagnosis", 0, OTHER, repeat=1),
        record("t", "self_diagnosis", 1, THIRD, True, repeat=1),
    ]
    chains = group_chains(records)
    assert len(chains["self_diagnosis"]["t"]) == 2
    # Repeat 0 repeats itself (RRR 1), repeat 1 does not (0): pooled 0.5. Run together as one memory it would be 1/3.
    assert task_values(chains["self_diagnosis"], "rrr", 0.85) == {"t": 0.5}
    assert task_values(chains["self_diagnosis"], "solved", 0.85) == {"t": 0.5}


def test_runs_merged_keep_their_chains_apart() -> None:
    run_a = group_chains([record("t", "c", 0, SAME), record("t", "c", 1, SAME)], source="a")
    run_b = group_chains([record("t", "c", 0, OTHER), record("t", "c", 1, THIRD)], source="b")
    assert task_values(merge_chains([run_a, run_b])["c"], "rrr", 0.85) == {"t": 0.5}


def test_the_on_task_rate_counts_labelled_reflections() -> None:
    records = [
        record("t", "c", 0, SAME, label="on_task"),
        record("t", "c", 1, OTHER, label="off_task"),
        record("t", "c", 2, THIRD, label="on_task"),
        record("t", "c", 3, THIRD),
        record("u", "c", 0, SAME),
    ]
    assert task_values(group_chains(records)["c"], "on_task_rate", 0.85) == {"t": pytest.approx(2 / 3), "u": None}


def test_no_control_no_effects() -> None:
    assert effects([record("t", "no_memory", 0, None)]) is None


def planted_run(tasks: int = 12) -> list[TrialRecord]:
    """The control never solves, `better` always does, `same` plays like the control."""
    records = []
    for i in range(tasks):
        for condition, success in (("self_diagnosis", False), ("better", True), ("same", False)):
            records.append(record(f"t{i}", condition, 0, SAME if condition != "better" else OTHER))
            records.append(record(f"t{i}", condition, 1, SAME if condition != "better" else THIRD, success))
    return records


def test_a_planted_difference_is_found_and_an_equal_condition_is_not() -> None:
    result = effects(planted_run())
    rows = {(row.measure, row.condition): row for row in result.rows}
    assert set(rows) == {("solved", "better"), ("solved", "same"), ("rrr", "better"), ("rrr", "same")}
    solved = rows[("solved", "better")]
    assert (solved.n, solved.test, solved.discordant, solved.difference) == (12, "mcnemar_exact", (12, 0), 1.0)
    assert solved.p == pytest.approx(2 / 2**12)
    assert solved.p_holm == pytest.approx(2 * 2 / 2**12)  # Holm over two conditions: the smallest p times 2
    assert solved.significant
    assert not rows[("solved", "same")].significant and rows[("solved", "same")].p == 1.0
    rrr = rows[("rrr", "better")]
    assert (rrr.control_mean, rrr.condition_mean, rrr.test) == (1.0, 0.0, "paired_permutation")
    assert rrr.significant and rrr.ci_low is None  # every difference is -1: no variance, no interval


def test_with_repeats_a_task_counts_once_and_solved_shares_take_the_permutation_test() -> None:
    records = []
    for i in range(6):
        for repeat in range(2):
            records.append(record(f"t{i}", "self_diagnosis", 0, None, success=repeat == 0, repeat=repeat))
            records.append(record(f"t{i}", "better", 0, None, success=True, repeat=repeat))
    solved, first = effects(records).rows  # every task solved at trial 0 in both: the first solving trial pairs too
    assert (first.measure, first.n, first.difference) == ("first_solving_trial", 6, 0.0)
    row = solved
    assert (row.measure, row.n, row.test, row.discordant) == ("solved", 6, "paired_permutation", None)
    assert (row.control_mean, row.condition_mean) == (0.5, 1.0)
    assert row.p == pytest.approx(2 / 2**6)  # every difference +0.5: only all plus and all minus are as extreme
