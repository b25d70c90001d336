"""The paired tests of two conditions over tasks: pairing and dropping by task id, McNemar's exact p, the exact
sign-flip p at a few tasks, the interval that inverts it and its refusals, and Holm with undefined p-values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import permutation_test

from harness.metrics.paired import (
    ALPHA,
    difference_interval,
    holm_or_none,
    mcnemar_exact,
    paired_difference,
    paired_permutation_p,
    paired_values,
)
from harness.metrics.sign_flip import MIN_TASKS_FOR_INTERVAL, alike_interval, sign_flip_interval


def test_tasks_pair_by_id_and_the_rest_are_dropped_and_counted() -> None:
    tasks, dropped = paired_values({"a": 1.0, "b": None, "c": 0.5}, {"a": 0.0, "b": 1.0, "d": 0.0})
    assert tasks == ["a"]
    assert dropped == 3  # b undefined on one side, c and d on one side only


def test_mcnemar_counts_only_the_discordant_tasks() -> None:
    control = [False] * 8 + [True] + [True] * 5
    condition = [True] * 8 + [False] + [True] * 5
    (gained, lost), p = mcnemar_exact(control, condition)
    assert (gained, lost) == (8, 1)
    # Two-sided binomial at 1/2 over 9 discordant tasks: 2 * (C(9,8) + C(9,9)) / 2**9.
    assert p == pytest.approx(20 / 512)
    assert mcnemar_exact([True, False], [True, False]) == ((0, 0), 1.0)


def test_solved_uses_mcnemar_while_binary_and_the_permutation_test_once_shares() -> None:
    control = {f"t{i}": 0.0 for i in range(10)}
    condition = {f"t{i}": 1.0 for i in range(10)}
    binary = paired_difference(control, condition, binary=True)
    assert (binary.test, binary.discordant, binary.n) == ("mcnemar_exact", (10, 0), 10)
    assert binary.p == pytest.approx(2 / 2**10)
    shares = paired_difference({**control, "t0": 1 / 3}, condition, binary=True)
    assert shares.test == "paired_permutation" and shares.discordant is None


def test_the_sign_flip_p_is_exact_at_a_few_tasks() -> None:
    # 2**5 sign patterns; only all plus and all minus reach |mean| 1.
    assert paired_permutation_p([1.0] * 5) == pytest.approx(2 / 32)
    assert paired_permutation_p([0.0] * 5) == 1.0
    assert paired_permutation_p([0.5]) == 1.0
    assert paired_permutation_p([0.5, -0.5, 0.25, -0.25]) == pytest.approx(1.0)


def test_the_interval_is_withheld_below_its_floor_and_bounded_where_every_difference_is_alike() -> None:
    few = [0.5, 0.25, 0.0, 0.75, 0.5, 0.25, 0.5, 0.0, 0.25][: MIN_TASKS_FOR_INTERVAL - 1]
    assert difference_interval(few) == (None, "too few tasks")
    # Every difference alike: no spread for the sign flips, so the exact bound (shares' differences lie in [-1, 1]).
    alike = [0.25] * MIN_TASKS_FOR_INTERVAL
    assert difference_interval(alike) == (None, "tasks alike")
    interval, why = difference_interval(alike, (-1.0, 1.0))
    assert why is None and interval == alike_interval(0.25, MIN_TASKS_FOR_INTERVAL, (-1.0, 1.0))
    assert interval[0] < 0.25 < interval[1]
    # 9 of 9 reflections on task from 3 tasks, each at 1 in [0, 1]: P(all 3 at 1) = q**3 < 0.05 below q = 0.37.
    low, high = alike_interval(1.0, 3, (0.0, 1.0))
    assert (round(low, 2), high) == (0.37, 1.0)


def test_the_interval_is_the_set_of_shifts_the_permutation_test_keeps() -> None:
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(MIN_TASKS_FOR_INTERVAL, MIN_TASKS_FOR_INTERVAL + 3))
        differences = rng.integers(-4, 5, n) / 4
        p = paired_permutation_p(differences)
        interval, why = difference_interval(differences)
        if interval is None:
            continue
        low, high = interval
        assert low <= float(np.mean(differences)) <= high
        assert (low <= 0.0 <= high) == (p > ALPHA), (differences, p, interval)
        # Shifted by the lower end, the test keeps it; a little further it rejects.
        assert paired_permutation_p(differences - low) > ALPHA
        assert paired_permutation_p(differences - (low - 1e-6)) <= ALPHA
    # At 6 tasks 2 of 64 sign patterns are extreme enough: the interval is the differences' range (Hartigan).
    assert sign_flip_interval([0.1, 0.4, -0.2, 0.3, 0.0, 0.6]) == pytest.approx((-0.2, 0.6))
    assert sign_flip_interval([0.1, 0.4, -0.2, 0.3, 0.0]) is None


def test_the_exact_sign_flip_p_is_scipys() -> None:
    rng = np.random.default_rng(4)
    for _ in range(40):
        differences = rng.integers(-3, 4, int(rng.integers(2, 12))) / 3
        if abs(differences.sum()) < 1e-9:
            continue
        expected = permutation_test(
            (differences,), lambda x, axis=-1: np.mean(x, axis=axis), permutation_type="samples", vectorized=True,
            n_resamples=9999, rng=np.random.default_rng(0),
        ).pvalue  # fmt: skip
        assert paired_permutation_p(differences) == pytest.approx(min(1.0, expected), abs=1e-12)


def test_a_nan_difference_is_refused_not_read_as_p_0() -> None:
    # Issue 47: an undefined per-task value that reached the test as NaN gave p = 0, "significant" on nothing.
    with pytest.raises(ValueError, match="finite numbers, got nan"):
        paired_permutation_p([0.5, math.nan, 0.25])
    with pytest.raises(ValueError, match="finite numbers, got nan"):
        paired_permutation_p([math.nan])
    # Paired by task, NaN is undefined like None: dropped and counted, never compared.
    result = paired_difference({"a": 0.0, "b": math.nan, "c": 1.0}, {"a": 0.5, "b": 1.0, "c": 1.0})
    assert (result.n, result.dropped, result.difference) == (2, 1, 0.25)


def test_a_difference_reports_its_means_over_the_paired_tasks_only() -> None:
    result = paired_difference({"a": 0.0, "b": 0.5, "c": 1.0}, {"a": 0.5, "b": 1.0, "x": 0.0})
    assert (result.n, result.dropped) == (2, 2)
    assert (result.control_mean, result.condition_mean, result.difference) == (0.25, 0.75, 0.5)
    assert (result.ci_low, result.ci_high, result.no_interval) == (None, None, "too few tasks")
    empty = paired_difference({"a": 1.0}, {"b": 1.0})
    assert (empty.n, empty.p, empty.difference) == (0, None, None)


def test_holm_skips_undefined_p_values() -> None:
    assert holm_or_none([0.01, None, 0.04, 0.03]) == pytest.approx([0.03, None, 0.06, 0.06])


def test_a_mean_difference_of_zero_has_p_1_whatever_the_rounding() -> None:
    # Shares in thirds summing to 0: their float mean is 1.5e-17, and scipy's tie tolerance, relative to that mean,
    # let rounding noise in the resampled means decide the ties at 0 (p 0.92); every sign pattern is as extreme.
    thirds = [-1, 0, -1, 0, 0, 0, 3, -2, -1, 2, 3, -2, 3, 3, -2, 0, 1, -1, -2, -2, 0, 0, 2, -1, 0, 1, 2, 0, -2, -3]
    assert sum(thirds) == 0 and sum(t / 3 for t in thirds) != 0
    assert paired_permutation_p([t / 3 for t in thirds]) == 1.0
