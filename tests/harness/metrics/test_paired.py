"""The paired tests of two conditions over tasks: pairing and dropping by task id, McNemar's exact p, the exact
sign-flip p at a few tasks, the bootstrap interval's refusals, and Holm with undefined p-values."""

from __future__ import annotations

import pytest

from harness.metrics.paired import (
    bootstrap_interval,
    holm_or_none,
    mcnemar_exact,
    paired_difference,
    paired_permutation_p,
    paired_values,
)


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


def test_the_interval_is_none_below_three_tasks_or_without_variance_and_holds_the_mean_otherwise() -> None:
    assert bootstrap_interval([0.5, 0.2]) is None
    assert bootstrap_interval([0.25] * 10) is None
    differences = [0.0, 0.25, 0.5, 0.25, 0.75, 0.0, 0.5, 0.25]
    low, high = bootstrap_interval(differences)
    assert low < sum(differences) / len(differences) < high
    assert bootstrap_interval(differences) == (low, high)  # seeded


def test_a_difference_reports_its_means_over_the_paired_tasks_only() -> None:
    result = paired_difference({"a": 0.0, "b": 0.5, "c": 1.0}, {"a": 0.5, "b": 1.0, "x": 0.0})
    assert (result.n, result.dropped) == (2, 2)
    assert (result.control_mean, result.condition_mean, result.difference) == (0.25, 0.75, 0.5)
    assert result.ci_low is None and result.ci_high is None
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
