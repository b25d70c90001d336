"""A test instrument: simulated studies proving the paired tests of harness.metrics.paired find a planted effect
and hold their false-positive rate near alpha on a null.

Each simulated study has N_TASKS tasks, each with a latent difficulty d ~ Normal(0, 1) shared by both conditions
(what makes the data paired). Per task, on the logit scale, shifted by -d:
- solved, one repeat: won with probability expit(logit(p) - d); McNemar's exact test. Planted: p 0.25 (control)
  vs 0.75 (condition) for the median task (at 0.3 vs 0.7 McNemar's power over 30 tasks is 0.73, below 0.80: test_mcnemar_power.py).
- solved, three repeats: the share of three such draws; the paired permutation test (what `paired_difference` uses
  once repeats make solved a share). Same planted p.
- RRR: 4 reflections after the first, each repeating with probability expit(logit(q) - d); share repeated.
  Planted: q 0.3 vs 0.6.
- on-task identity rate: 5 reflections, each on_task with probability expit(logit(r) - d); share on_task.
  Planted: r 0.6 vs 0.3.
The null draws both conditions from the control's parameters. A study "finds" the effect when p < ALPHA (one
condition against the control, so Holm leaves p unchanged).

Measured (seed 20251202, N_TASKS 30, 400 null and 200 planted studies, permutation p from 999 random sign patterns),
printed by `pytest -s`:
  power: solved McNemar 0.935, solved 3 repeats 1.000, RRR 0.950, on-task rate 1.000
  false-positive rate: solved McNemar 0.0225, solved 3 repeats 0.0375, RRR 0.040, on-task rate 0.025
  the BCa bootstrap 95% interval of the mean difference covers the true 0 in 0.915 of 200 null studies (RRR, 999
  resamples): a little under its level at 30 tasks of discrete shares, which the bound 0.90 allows for.
  Holm over four null conditions against one shared control (the five-condition design, RRR): a family-wise error
  of 0.030 over 200 studies.
McNemar's exact test is conservative at this size (its discrete p rarely reaches alpha): the price of exactness.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from harness.metrics.paired import ALPHA, bootstrap_interval, holm_or_none, mcnemar_exact, paired_permutation_p

SEED = 20251202
N_TASKS = 30
NULL_STUDIES = 400
PLANTED_STUDIES = 200
COVERAGE_STUDIES = 200
FAMILY_STUDIES = 200
FAMILY_CONDITIONS = 4
"""The five-condition design: four conditions against the control, Holm across them."""
PERMUTATION_RESAMPLES = 999
"""Fewer than the report's 9999 to keep the instrument fast; a p resolution of 0.001 is ample at alpha 0.05."""

MIN_POWER = 0.80
MAX_FALSE_POSITIVE_RATE = 0.07

PLANTED = {"solved": (0.25, 0.75), "rrr": (0.3, 0.6), "on_task": (0.6, 0.3)}
"""(control, condition) probability of the median task per measure."""


def _shares(rng: np.random.Generator, probability: float, difficulty: np.ndarray, draws: int) -> np.ndarray:
    return rng.binomial(draws, expit(logit(probability) - difficulty)) / draws


def simulated_study(rng: np.random.Generator, planted: bool) -> dict[str, float]:
    """One study's p per test."""
    difficulty = rng.normal(0.0, 1.0, N_TASKS)

    def pair(measure: str, draws: int) -> tuple[np.ndarray, np.ndarray]:
        control, condition = PLANTED[measure]
        other = condition if planted else control
        return _shares(rng, control, difficulty, draws), _shares(rng, other, difficulty, draws)

    solved_a, solved_b = pair("solved", 1)
    _, p_mcnemar = mcnemar_exact(list(solved_a == 1), list(solved_b == 1))
    p_values = {"solved McNemar": p_mcnemar}
    for name, (a, b) in {
        "solved 3 repeats": pair("solved", 3),
        "RRR": pair("rrr", 4),
        "on-task rate": pair("on_task", 5),
    }.items():
        p_values[name] = paired_permutation_p(b - a, PERMUTATION_RESAMPLES, seed=int(rng.integers(2**31)))
    return p_values


def rejection_rates(studies: int, planted: bool, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    results = [simulated_study(rng, planted) for _ in range(studies)]
    return {name: float(np.mean([r[name] < ALPHA for r in results])) for name in results[0]}


@pytest.fixture(scope="module")
def power() -> dict[str, float]:
    rates = rejection_rates(PLANTED_STUDIES, planted=True, seed=SEED)
    print(f"\npower over {PLANTED_STUDIES} planted studies of {N_TASKS} tasks at alpha {ALPHA}: {rates}")
    return rates


@pytest.fixture(scope="module")
def false_positive_rate() -> dict[str, float]:
    rates = rejection_rates(NULL_STUDIES, planted=False, seed=SEED + 1)
    print(f"\nfalse-positive rate over {NULL_STUDIES} null studies of {N_TASKS} tasks at alpha {ALPHA}: {rates}")
    return rates


def test_every_paired_test_finds_the_planted_effect(power: dict[str, float]) -> None:
    assert set(power) == {"solved McNemar", "solved 3 repeats", "RRR", "on-task rate"}
    assert all(rate >= MIN_POWER for rate in power.values()), power


def test_every_paired_test_holds_alpha_on_the_null(false_positive_rate: dict[str, float]) -> None:
    assert all(rate <= MAX_FALSE_POSITIVE_RATE for rate in false_positive_rate.values()), false_positive_rate


def test_the_tests_can_move_a_null_is_not_always_accepted(false_positive_rate: dict[str, float]) -> None:
    # A test that never rejects would pass the null check; a permutation test at alpha 0.05 must reject sometimes.
    assert false_positive_rate["RRR"] > 0.0 and false_positive_rate["on-task rate"] > 0.0


def test_the_bootstrap_interval_covers_the_null_difference_at_its_level() -> None:
    rng = np.random.default_rng(SEED + 2)
    covered = []
    for _ in range(COVERAGE_STUDIES):
        difficulty = rng.normal(0.0, 1.0, N_TASKS)
        a, b = (_shares(rng, PLANTED["rrr"][0], difficulty, 4) for _ in range(2))
        interval = bootstrap_interval(b - a, n_resamples=PERMUTATION_RESAMPLES, seed=int(rng.integers(2**31)))
        assert interval is not None
        covered.append(interval[0] <= 0.0 <= interval[1])
    coverage = float(np.mean(covered))
    print(f"\nbootstrap 95% interval covers 0 in {coverage:.3f} of {COVERAGE_STUDIES} null studies (RRR)")
    assert 0.90 <= coverage <= 0.99


def test_holm_holds_the_family_wise_error_over_four_null_conditions() -> None:
    rng = np.random.default_rng(SEED + 3)
    any_rejected = []
    for _ in range(FAMILY_STUDIES):
        difficulty = rng.normal(0.0, 1.0, N_TASKS)
        control = _shares(rng, PLANTED["rrr"][0], difficulty, 4)
        p_values = [
            paired_permutation_p(
                _shares(rng, PLANTED["rrr"][0], difficulty, 4) - control,
                PERMUTATION_RESAMPLES,
                seed=int(rng.integers(2**31)),
            )
            for _ in range(FAMILY_CONDITIONS)
        ]
        any_rejected.append(any(p < ALPHA for p in holm_or_none(p_values)))
    rate = float(np.mean(any_rejected))
    print(f"\nfamily-wise error over {FAMILY_STUDIES} null studies of {FAMILY_CONDITIONS} conditions (RRR, Holm): {rate}")
    assert rate <= MAX_FALSE_POSITIVE_RATE
