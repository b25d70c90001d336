"""Tango's score interval for paired proportions, and the solved difference's interval that joins it with the
sign-flip one: the restricted likelihood it rests on, its ends, and agreement with McNemar's exact test at 0."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import norm

from harness.metrics.paired import ALPHA, difference_interval, mcnemar_exact
from harness.metrics.paired_proportions import (
    MIN_TASKS_FOR_BINARY_INTERVAL,
    _restricted_lost_share,
    score_interval,
    score_statistic,
)

Z = float(norm.ppf(0.975))


def numeric_lost_share(gained: int, lost: int, n: int, theta: float) -> float:
    """The control-alone share maximising the multinomial likelihood when gained - lost shares differ by theta."""

    def minus_log_likelihood(q: float) -> float:
        cells = ((gained, q + theta), (lost, q), (n - gained - lost, 1 - 2 * q - theta))
        return -sum(count * math.log(p) for count, p in cells if count)

    low, high = max(0.0, -theta) + 1e-12, (1 - theta) / 2 - 1e-12
    return float(minimize_scalar(minus_log_likelihood, bounds=(low, high), method="bounded",
                                 options={"xatol": 1e-12}).x)  # fmt: skip


@pytest.mark.parametrize(("gained", "lost", "n"), [(5, 1, 12), (0, 3, 10), (9, 0, 15), (4, 4, 20), (2, 7, 30)])
@pytest.mark.parametrize("theta", [-0.5, -0.1, 0.2, 0.6])
def test_the_restricted_share_is_the_constrained_likelihoods_maximum(gained: int, lost: int, n: int,
                                                                     theta: float) -> None:  # fmt: skip
    assert _restricted_lost_share(gained, lost, n, theta) == pytest.approx(
        numeric_lost_share(gained, lost, n, theta), abs=1e-6
    )


def test_at_no_difference_the_statistic_is_mcnemars() -> None:
    for gained, lost, n in [(5, 1, 12), (0, 3, 10), (9, 0, 15), (4, 4, 20)]:
        assert score_statistic(gained, lost, n, 0.0) == pytest.approx((gained - lost) / math.sqrt(gained + lost))


@pytest.mark.parametrize(("gained", "lost", "n"), [(5, 1, 12), (0, 3, 10), (9, 0, 15), (4, 4, 20), (1, 0, 10)])
def test_the_ends_are_where_the_score_test_starts_to_reject(gained: int, lost: int, n: int) -> None:
    low, high = score_interval(gained, lost, n, 0.95)
    assert -1 <= low < (gained - lost) / n < high <= 1
    for end in (low, high):
        if abs(end) < 1:
            assert abs(score_statistic(gained, lost, n, end)) == pytest.approx(Z, abs=1e-6)
    assert abs(score_statistic(gained, lost, n, low - 0.01)) > Z and abs(score_statistic(gained, lost, n, high + 0.01)) > Z


def test_counts_that_are_not_the_tasks_are_refused() -> None:
    with pytest.raises(ValueError, match="gained 8 and lost 5 must be counts of the 10 paired tasks"):
        score_interval(8, 5, 10, 0.95)


def test_the_solved_interval_holds_zero_exactly_where_mcnemars_exact_test_keeps_it() -> None:
    # Every table of 10 to 13 tasks, where the sign flips are all enumerated (from 14 they are 9,999 drawn at random,
    # whose p differs from McNemar's by their sampling): joining Tango's interval never makes a difference McNemar
    # keeps look decided, nor the reverse.
    for n in range(MIN_TASKS_FOR_BINARY_INTERVAL, 14):
        for gained in range(n + 1):
            for lost in range(n + 1 - gained):
                if gained == lost == 0 or gained + lost == n and 0 in (gained, lost):
                    continue  # every difference alike: the exact bound, not the sign-flip interval
                differences = [1.0] * gained + [-1.0] * lost + [0.0] * (n - gained - lost)
                (low, high), why = difference_interval(differences, binary=True)
                _, p = mcnemar_exact([False] * gained + [True] * lost + [False] * (n - gained - lost),
                                     [True] * gained + [False] * lost + [False] * (n - gained - lost))  # fmt: skip
                assert why is None and (low <= 0 <= high) == (p > ALPHA), (n, gained, lost, p, low, high)
                tango = score_interval(gained, lost, n, 0.95)
                assert low <= min(tango[0], np.mean(differences)) and high >= max(tango[1], np.mean(differences))


def test_below_its_floor_the_solved_interval_is_withheld_and_shares_keep_theirs() -> None:
    few = [1.0, 0.0, -1.0, 1.0] * 2 + [1.0]
    assert difference_interval(few, binary=True) == (None, "too few tasks")
    twelve = few + few[:3]
    assert difference_interval(twelve, binary=True)[1] is None
    assert difference_interval(twelve)[1] == "too few tasks"
