"""Fisher's exact test on solved counts: two conditions' solved/unsolved tasks as a 2x2 table, and every pair of
conditions with Holm's correction."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

from pydantic import BaseModel, ConfigDict, Field

SolvedCount = tuple[int, int]
"""(solved, n): tasks solved out of tasks played."""


class FisherResult(BaseModel):
    """Fisher's exact test of two solved counts."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="strings")

    odds_ratio: float | None = Field(
        description="(solved_a / unsolved_a) / (solved_b / unsolved_b); inf or 0 with an empty cell, None when 0/0."
    )
    p: float = Field(ge=0, le=1, description="Two-sided p-value of scipy.stats.fisher_exact.")


def _check(count: SolvedCount) -> None:
    solved, n = count
    if n < 1 or not 0 <= solved <= n:
        raise ValueError(f"a solved count needs 0 <= solved <= n and n >= 1, got {solved}/{n}.")


def fisher_solved(a: SolvedCount, b: SolvedCount) -> FisherResult:
    """Two-sided Fisher's exact test of [[solved_a, unsolved_a], [solved_b, unsolved_b]]."""
    from scipy.stats import fisher_exact

    _check(a)
    _check(b)
    result = fisher_exact([[a[0], a[1] - a[0]], [b[0], b[1] - b[0]]], alternative="two-sided")
    odds_ratio = float(result.statistic)
    # scipy's p can exceed 1 by a rounding step when every table is as likely as the observed one.
    return FisherResult(odds_ratio=None if math.isnan(odds_ratio) else odds_ratio, p=min(1.0, float(result.pvalue)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment, in the input order: the k-th smallest p times (m - k + 1), kept monotone, <= 1."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


class PairwiseFisher(BaseModel):
    """Fisher's exact test between two conditions, with the Holm-adjusted p over all the pairs compared."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="strings")

    a: str = Field(description="First condition.")
    b: str = Field(description="Second condition.")
    solved_a: int = Field(ge=0)
    n_a: int = Field(ge=1)
    solved_b: int = Field(ge=0)
    n_b: int = Field(ge=1)
    test: FisherResult
    p_holm: float = Field(ge=0, le=1, description="p adjusted by Holm's method over every pair of the comparison.")


def pairwise_fisher(counts: Sequence[tuple[str, int, int]]) -> list[PairwiseFisher]:
    """Every pair of (name, solved, n), in the given order (first with second, first with third, ...)."""
    pairs = list(combinations(counts, 2))
    tests = [fisher_solved((sa, na), (sb, nb)) for (_, sa, na), (_, sb, nb) in pairs]
    adjusted = holm([test.p for test in tests])
    return [
        PairwiseFisher(a=a, b=b, solved_a=sa, n_a=na, solved_b=sb, n_b=nb, test=test, p_holm=p_holm)
        for ((a, sa, na), (b, sb, nb)), test, p_holm in zip(pairs, tests, adjusted)
    ]
