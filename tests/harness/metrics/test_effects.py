"""Effects from records: per-task values pooled over repeats (never counted as tasks), RRR per repeat's chain, the
on-task rate from identity labels, the control's absence, and a planted difference found with Holm across
conditions."""

from __future__ import annotations

import pytest

from harness.metrics.effects import effects, group_chains, merge_chains, task_values
from harness.metrics.paired import holm_or_none
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
    result = effects(planted_run(15))
    rows = {(row.measure, row.condition): row for row in result.rows}
    measures = ("solved", "trials_to_win", "rrr", "rrr_matched")
    assert set(rows) == {(measure, condition) for measure in measures for condition in ("better", "same")}
    solved = rows[("solved", "better")]
    assert (solved.n, solved.test, solved.discordant, solved.difference) == (15, "mcnemar_exact", (15, 0), 1.0)
    assert solved.p == pytest.approx(2 / 2**15)
    assert solved.p_holm == pytest.approx(2 * 2 / 2**15)  # Holm over two conditions: the smallest p times 2
    assert solved.significant
    assert not rows[("solved", "same")].significant and rows[("solved", "same")].p == 1.0
    rrr = rows[("rrr", "better")]
    assert (rrr.control_mean, rrr.condition_mean, rrr.test) == (1.0, 0.0, "paired_permutation")
    # Every difference is -1: no spread for the sign flips, so the exact bound of 15 tasks alike (all 15 at -1 is
    # rarer than 5% unless a task is at -1 with probability 0.05**(1/15) = 0.82 or more): -1.00 to -0.64.
    assert rrr.significant and (rrr.ci_low, round(rrr.ci_high, 2)) == (-1.0, -0.64)


def test_with_repeats_a_task_counts_once_and_solved_shares_take_the_permutation_test() -> None:
    records = []
    for i in range(6):
        for repeat in range(2):
            records.append(record(f"t{i}", "self_diagnosis", 0, None, success=repeat == 0, repeat=repeat))
            records.append(record(f"t{i}", "better", 0, None, success=True, repeat=repeat))
    # Every task solved at trial 0 in both: the first solving trial pairs too, as do the trials before the first win
    # (0 where a chain won at once, 1 where it played its one trial and lost).
    solved, first, trials = effects(records).rows
    assert (first.measure, first.n, first.difference) == ("first_solving_trial", 6, 0.0)
    assert (trials.measure, trials.n, trials.control_mean, trials.condition_mean) == ("trials_to_win", 6, 0.5, 0.0)
    row = solved
    assert (row.measure, row.n, row.test, row.discordant) == ("solved", 6, "paired_permutation", None)
    assert (row.control_mean, row.condition_mean) == (0.5, 1.0)
    assert row.p == pytest.approx(2 / 2**6)  # every difference +0.5: only all plus and all minus are as extreme


def test_the_primary_measure_is_its_own_family_and_the_secondary_ones_share_one() -> None:
    """Issue 48: four measures were each Holm-adjusted over the conditions alone, none declared primary. Now the
    design's primary measure is adjusted over its conditions, every secondary row over all the secondary rows."""
    result = effects(planted_run(), primary="solved")
    rows = {(row.measure, row.condition): row for row in result.rows}
    secondary = [row for row in result.rows if row.measure != "solved"]
    assert result.primary == "solved"
    assert rows["solved", "better"].p_holm == pytest.approx(2 * rows["solved", "better"].p)  # two conditions
    p_values = [row.p for row in secondary]
    assert [row.p_holm for row in secondary] == pytest.approx(holm_or_none(p_values))
    smallest = min(p_values)  # type: ignore[type-var]
    assert min(row.p_holm for row in secondary) == pytest.approx(len(secondary) * smallest)  # type: ignore[type-var]
    # Declared primary, RRR is adjusted over its two conditions only.
    as_primary = {(r.measure, r.condition): r for r in effects(planted_run(), primary="rrr").rows}
    assert as_primary["rrr", "better"].p_holm == pytest.approx(2 * as_primary["rrr", "better"].p)
    assert effects(planted_run(), primary=None).primary is None


def test_a_primary_measure_that_is_no_measure_is_refused_in_one_sentence() -> None:
    from pydantic import ValidationError

    from harness.run.metrics_settings import MetricsSettings

    assert MetricsSettings(primary_measure="rrr_matched").primary_measure == "rrr_matched"
    with pytest.raises(ValidationError, match="metrics.primary_measure 'frozen' is no effect measure; accepted: solved"):
        MetricsSettings(primary_measure="frozen")
