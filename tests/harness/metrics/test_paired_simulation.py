"""A test instrument: simulated studies, written as trial records and measured by the report's own path from records
(tests/harness/metrics/simulated_studies.py), prove that the paired tests find a planted effect, that the interval
covers a null difference at about its level, and that Holm holds the family-wise error over the five-condition
design. Their p-values' calibration under the null is test_paired_calibration.py's; the interval's coverage at 3 to
20 tasks and under planted effects, test_interval_coverage.py's.

Measured (seed 20251202, 30 tasks, 200 studies, each with a planted and a null condition against one control; 999
random sign patterns), printed by `pytest -s`:
  power on Holm's p over the planted and the null condition (each test as a design's primary measure): solved
  McNemar 0.850, solved 3 repeats 1.000, RRR 0.940, on-task rate 0.990
  the 95% interval that inverts the permutation test covers the true 0 in 0.970 of the null comparisons (RRR):
  exactly the comparisons whose p is above alpha.
  Holm over four null conditions against one shared control (the five-condition design, RRR): a family-wise error
  of 0.035 over 200 studies.
McNemar's power is below the others' at this size: its exact p is discrete and conservative, the price of
exactness (its exact power at 0.25 vs 0.75 is 0.925: test_mcnemar_power.py).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from harness.metrics.paired import ALPHA, holm_or_none, paired_permutation_p
from tests.harness.metrics.simulated_studies import (
    N_TASKS,
    NULL_CONDITION,
    PLANTED,
    PLANTED_CONDITION,
    RESAMPLES,
    STUDIES,
    TESTS,
    measured_studies,
)

SEED = 20251202
MIN_POWER = 0.80
MAX_FALSE_POSITIVE_RATE = 0.07
FAMILY_STUDIES = 200
FAMILY_CONDITIONS = 4
"""The five-condition design: four conditions against the control, Holm across them."""


def test_every_paired_test_finds_the_planted_effect_through_the_reports_path() -> None:
    studies = measured_studies()
    power = {
        name: float(np.mean([study[PLANTED_CONDITION][name].significant for study in studies])) for name in TESTS
    }
    print(f"\npower over {STUDIES} planted studies of {N_TASKS} tasks at alpha {ALPHA} (Holm's p): {power}")
    tests = {name: {study[PLANTED_CONDITION][name].row.test for study in studies} for name in TESTS}
    assert tests["solved McNemar"] == {"mcnemar_exact"} and tests["solved 3 repeats"] == {"paired_permutation"}
    assert all(rate >= MIN_POWER for rate in power.values()), power


def test_the_interval_covers_the_null_difference_at_its_level() -> None:
    rows = [study[NULL_CONDITION]["RRR"].row for study in measured_studies()]
    assert all(row.ci_low is not None and row.ci_high is not None for row in rows)
    coverage = float(np.mean([row.ci_low <= 0.0 <= row.ci_high for row in rows]))  # type: ignore[operator]
    print(f"\nsign-flip 95% interval covers 0 in {coverage:.3f} of {len(rows)} null comparisons (RRR)")
    # It inverts the permutation test, which is exact under the null: it holds 0 exactly when p > alpha.
    assert all((row.ci_low <= 0.0 <= row.ci_high) == (row.p > ALPHA) for row in rows)  # type: ignore[operator]
    assert 0.93 <= coverage <= 0.99


def _shares(rng: np.random.Generator, probability: float, difficulty: np.ndarray, draws: int) -> np.ndarray:
    return rng.binomial(draws, expit(logit(probability) - difficulty)) / draws


def test_holm_holds_the_family_wise_error_over_four_null_conditions() -> None:
    rng = np.random.default_rng(SEED + 3)
    draws = TESTS["RRR"][1]
    any_rejected = []
    for _ in range(FAMILY_STUDIES):
        difficulty = rng.normal(0.0, 1.0, N_TASKS)
        control = _shares(rng, PLANTED["rrr"][0], difficulty, draws)
        p_values = [
            paired_permutation_p(
                _shares(rng, PLANTED["rrr"][0], difficulty, draws) - control, RESAMPLES, seed=int(rng.integers(2**31))
            )
            for _ in range(FAMILY_CONDITIONS)
        ]
        any_rejected.append(any(p < ALPHA for p in holm_or_none(p_values)))
    rate = float(np.mean(any_rejected))
    print(f"\nfamily-wise error over {FAMILY_STUDIES} null studies of {FAMILY_CONDITIONS} conditions (Holm): {rate}")
    assert rate <= MAX_FALSE_POSITIVE_RATE
