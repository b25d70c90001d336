"""Fisher's exact test on solved counts, and Holm's adjustment, against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from harness.metrics.fisher import fisher_solved, holm, pairwise_fisher


def test_fisher_matches_the_hypergeometric_by_hand() -> None:
    # 3/4 against 1/4: margins 4, 4 and 4, 4 of 8; P(k solved in A) = C(4,k)^2 / 70 = 1, 16, 36, 16, 1 (/70).
    # Two-sided: every table no more likely than the observed (k = 3, 16/70): (1 + 16 + 16 + 1) / 70.
    result = fisher_solved((3, 4), (1, 4))
    assert result.p == pytest.approx(34 / 70)
    assert result.odds_ratio == pytest.approx((3 / 1) / (1 / 3))


def test_fisher_is_symmetric_in_p_and_inverts_the_odds_ratio() -> None:
    forward, backward = fisher_solved((7, 10), (2, 9)), fisher_solved((2, 9), (7, 10))
    assert forward.p == pytest.approx(backward.p)
    assert forward.odds_ratio == pytest.approx(1 / backward.odds_ratio)


def test_empty_cells_give_an_infinite_zero_or_undefined_odds_ratio() -> None:
    assert fisher_solved((2, 2), (1, 2)).odds_ratio == math.inf
    assert fisher_solved((0, 3), (2, 2)).odds_ratio == 0.0
    undefined = fisher_solved((0, 2), (0, 3))
    assert (undefined.odds_ratio, undefined.p) == (None, 1.0)
    assert fisher_solved((2, 2), (1, 2)).model_dump_json() == '{"odds_ratio":"Infinity","p":1.0}'


@pytest.mark.parametrize(("a", "b"), [((3, 2), (1, 2)), ((-1, 2), (1, 2)), ((0, 0), (1, 2))])
def test_impossible_counts_are_refused(a: tuple[int, int], b: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="0 <= solved <= n and n >= 1"):
        fisher_solved(a, b)


def test_holm_multiplies_the_kth_smallest_by_m_minus_k_plus_1_and_stays_monotone() -> None:
    # Sorted 0.01, 0.03, 0.04: 3 x 0.01 = 0.03; 2 x 0.03 = 0.06; 1 x 0.04 = 0.04, raised to 0.06.
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []


def test_pairwise_covers_every_pair_in_order_with_holm_over_all_of_them() -> None:
    pairs = pairwise_fisher([("a", 3, 4), ("b", 1, 4), ("c", 9, 10)])
    assert [(p.a, p.b) for p in pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pairs[0].test == fisher_solved((3, 4), (1, 4))
    assert [p.p_holm for p in pairs] == pytest.approx(holm([p.test.p for p in pairs]))
    assert (pairs[2].solved_a, pairs[2].n_a, pairs[2].solved_b, pairs[2].n_b) == (1, 4, 9, 10)
    assert pairwise_fisher([("only", 1, 2)]) == []
