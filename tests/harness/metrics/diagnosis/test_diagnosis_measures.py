"""The diagnosis measures on cases where each must say yes and where it must say no (planted claims against planted
ground truths), the chance row's expectations against brute force, the shares over tasks, the strata and the paired
effects with their discordant counts."""

from __future__ import annotations

import itertools

import pytest

from harness.metrics.diagnosis.effects import paired_effects
from harness.metrics.diagnosis.rows import (
    FIRST_LOOP_START,
    PARSER_SIGNALS,
    RANDOM_STEP,
)
from harness.metrics.diagnosis.scores import expected_random, score_claims
from harness.metrics.diagnosis.shares import by_task, measure_share
from harness.metrics.diagnosis.summary import domain_diagnosis
from harness.records.diagnosis import Claim, GroundTruth, ReflectionClaims
from harness.records.diagnosis_log import TrialDiagnosis


def truth(decisive: int | None = 5, steps: int = 10, errors: tuple[int, ...] = (3, 5, 6), pnr: int | None = 8,
          category: str | None = "wrong_object", scored: bool = True, task: str = "t") -> GroundTruth:
    return GroundTruth(domain="alfworld", task_id=task, rule="planted/1", scored=scored, steps=steps,
                       decisive_step=decisive, error_steps=list(errors), point_of_no_return=pnr, category=category,
                       unscored=None if scored else "replay diverged at step 2")


def claims(*steps: int, cause: str | None = None, confabulated: bool = False, ambiguous: bool = False
           ) -> ReflectionClaims:
    said = [Claim(kind="object", text="x", start=0, end=1, means="x", confabulated=confabulated)]
    return ReflectionClaims(rule="planted/1", claimed_steps=list(steps), cause=cause, claims=said, ambiguous=ambiguous)


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (claims(5, cause="wrong_object"), {"localises": 1, "exact": 1, "within_1": 1, "within_2": 1, "any_error": 1,
                                               "post_mortem": 0, "cause": 1, "joint": 1, "confabulated": 0}),
        (claims(6, cause="loop"), {"localises": 1, "exact": 0, "within_1": 1, "within_2": 1, "any_error": 1, "post_mortem": 0,
                                       "cause": 0, "joint": 0}),
        (claims(7), {"exact": 0, "within_1": 0, "within_2": 1, "any_error": 0, "post_mortem": 0, "cause": 0}),
        (claims(9, confabulated=True), {"exact": 0, "within_2": 0, "post_mortem": 1, "confabulated": 1}),
        (claims(), {"localises": 0, "exact": 0, "within_1": 0, "within_2": 0, "any_error": 0, "post_mortem": 0}),
        (claims(ambiguous=True), {"localises": 1, "exact": 0}),
        (claims(1, 5), {"exact": 1, "any_error": 1}),
    ],
)
def test_each_measure_says_yes_and_no_where_it_should(said: ReflectionClaims, expected: dict[str, int]) -> None:
    scored = score_claims(truth(), said)
    assert {name: scored.value(name) for name in expected} == {k: float(v) for k, v in expected.items()}  # type: ignore[arg-type]


def test_undefined_where_the_ground_truth_gives_nothing_to_be_right_about() -> None:
    budget = score_claims(truth(decisive=None, category="search_budget", errors=(), pnr=None), claims(4, cause="loop"))
    assert (budget.exact, budget.within_2, budget.any_error, budget.post_mortem, budget.joint) == (None,) * 5
    assert (budget.localises, budget.cause) == (1.0, 0.0)
    assert score_claims(truth(scored=False), claims(5)) == score_claims(truth(scored=False), claims())
    assert score_claims(truth(scored=False), claims(5)).exact is None


def test_the_chance_row_is_the_mean_over_every_step_a_random_pick_could_name() -> None:
    for decisive, steps, pnr in [(5, 10, 8), (1, 4, None), (12, 12, 3)]:
        planted = truth(decisive=decisive, steps=steps, pnr=pnr, errors=(1, decisive))
        picks = [score_claims(planted, claims(step)) for step in range(1, steps + 1)]
        chance = expected_random(planted)
        for measure in ("exact", "within_1", "within_2", "any_error", "post_mortem"):
            values = [p.value(measure) for p in picks]  # type: ignore[arg-type]
            brute = None if None in values else sum(values) / steps  # type: ignore[arg-type]
            assert chance.value(measure) == pytest.approx(brute) if brute is not None else chance.value(measure) is None  # type: ignore[arg-type]
        assert chance.exact == pytest.approx(1 / steps) and chance.cause is None


def test_a_share_is_the_mean_of_the_tasks_shares_with_its_interval_over_tasks() -> None:
    per_task = by_task([("a", 1.0), ("a", 0.0), ("b", 1.0), ("c", 0.0), ("d", 1.0), ("e", None), ("f", 1.0)])
    share = measure_share(per_task)
    assert (share.count, share.n, share.tasks, share.share) == (4, 6, 5, pytest.approx(3.5 / 5))
    assert share.low is not None and share.high is not None and share.low < 3.5 / 5 < share.high
    assert share == measure_share(by_task([("a", 1.0), ("a", 0.0), ("a", 1.0), ("a", 0.0), ("b", 1.0), ("c", 0.0),
                                           ("d", 1.0), ("f", 1.0)])).model_copy(update={"count": 4, "n": 6})
    assert measure_share({}).share is None
    expected = measure_share({"a": [0.1], "b": [0.3, 0.5]}, expected=True)
    assert (expected.share, expected.no_interval) == (pytest.approx(0.25), "expected value")


def item(task: str, condition: str, said: ReflectionClaims | None, planted: GroundTruth, sha: str | None = None,
         rows: dict[str, ReflectionClaims] | None = None) -> TrialDiagnosis:
    return TrialDiagnosis(task_id=task, condition=condition, trial=0, trajectory_sha256=sha or task, truth=planted,
                          claims=said, rows=rows or {})


def test_the_table_sets_the_conditions_beside_the_chance_and_heuristic_rows_and_strata() -> None:
    items = []
    for n in range(6):
        task = f"t{n}"
        planted = truth(task=task, category="loop" if n < 2 else "wrong_object")
        rows = {PARSER_SIGNALS: claims(5 if n < 2 else 1, cause="loop"), FIRST_LOOP_START: claims(5)}
        items += [item(task, "self_diagnosis", claims(5 if n < 3 else 9), planted, rows=rows),
                  item(task, "third_party", claims(5, cause="wrong_object"), planted, rows=rows)]
    found = domain_diagnosis("alfworld", items, ["self_diagnosis", "third_party"])
    names = [row.name for row in found.rows]
    assert names == [RANDOM_STEP, FIRST_LOOP_START, PARSER_SIGNALS, "self_diagnosis", "third_party"]
    rows = {row.name: row for row in found.rows}
    assert rows["self_diagnosis"].measures["exact"].count == 3 and rows["third_party"].measures["exact"].count == 6
    assert rows[PARSER_SIGNALS].measures["exact"].count == 2 and rows[RANDOM_STEP].trials == 6
    signalled = {row.name: row for row in found.strata["signalled"]}
    assert signalled["self_diagnosis"].trials == 2 and signalled[PARSER_SIGNALS].measures["exact"].share == 1.0
    assert {row.name: row.trials for row in found.strata["other"]}["third_party"] == 4
    assert found.categories == {"loop": 2, "wrong_object": 4}


def test_paired_effects_count_the_discordant_trajectories_and_adjust_across_conditions() -> None:
    items = []
    for n, (control_hit, a_hit, b_hit) in enumerate(itertools.islice(itertools.cycle(
            [(0, 1, 0), (0, 1, 1), (1, 1, 0), (0, 0, 0)]), 12)):
        planted = truth(task=f"t{n}")
        items += [item(f"t{n}", "self_diagnosis", claims(5 if control_hit else 1), planted),
                  item(f"t{n}", "a", claims(5 if a_hit else 1), planted),
                  item(f"t{n}", "b", claims(5 if b_hit else 1), planted)]
    effects = {(e.condition, e.measure): e for e in paired_effects(items, ["self_diagnosis", "a", "b"],
                                                                   "self_diagnosis")}
    exact_a, exact_b = effects[("a", "exact")], effects[("b", "exact")]
    assert (exact_a.pairs, exact_a.discordant, exact_b.discordant) == (12, (6, 0), (3, 3))
    assert exact_a.mcnemar_p == pytest.approx(2 * 0.5**6)
    assert exact_a.mcnemar_holm == pytest.approx(min(1.0, 2 * exact_a.mcnemar_p))  # type: ignore[operator]
    assert exact_a.over_tasks.difference == pytest.approx(0.5) and exact_a.over_tasks.n == 12


def test_the_code_and_listed_signals_read_as_a_cause() -> None:
    from harness.metrics.diagnosis.rows import code_signals_cause, listed_signals_cause
    from harness.records.humaneval import CodeSignals

    quiet = {"failed_asserts": [], "exceptions": [], "resource_limit": None, "killed_by": None, "exited_early": False,
                 "unfinished": None}
    assert code_signals_cause(CodeSignals(timeout=True, **quiet)).cause == "timeout"  # type: ignore[arg-type]
    assert code_signals_cause(CodeSignals(timeout=False, **quiet)).cause is None  # type: ignore[arg-type]
    lines = ["The answer `Paris` does not occur in the context."]
    assert listed_signals_cause(lines).cause == "unsupported_answer"
    assert listed_signals_cause(["The answer `x` repeats an answer given in an earlier trial."]).cause is None
