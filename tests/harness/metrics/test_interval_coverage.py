"""Every interval the reports print covers its true value at least 0.93 of the time at 3, 5, 10 and 20 tasks, or is
withheld at that size with "too few tasks" (issue 48): the paired difference's (the sign-flip inversion), a share of
reflections' (Clopper-Pearson over tasks) and the solved share's (Clopper-Pearson over tasks, exact).

The designs and the simulation are benchmarks/interval_coverage.py's, which prints more sizes from 3 to 20 at 2,000
studies a design (docs/metrics.md quotes it); here the four sizes, with 999 random sign patterns where all of them
are too many (the report draws 9,999). The bound is the acceptance's
0.93 with no band below it: a method that undercovers by a point or more fails here (the bootstrap over tasks this
replaced, printed from 3 tasks, covered
0.72-0.86 at 3-5 tasks and 0.89-0.93 at 10: issue 48).
"""

from __future__ import annotations

import pytest

from benchmarks.interval_coverage import (
    DIFFERENCES,
    HARSH,
    SHARES,
    SIZES,
    difference_coverage,
    share_coverage,
    solved_coverage,
)
from harness.metrics.paired_proportions import MIN_TASKS_FOR_BINARY_INTERVAL
from harness.metrics.sign_flip import MIN_TASKS_FOR_INTERVAL

LEAST_COVERAGE = 0.93
DIFFERENCE_STUDIES = 2000
SHARE_STUDIES = 2000
SIGN_PATTERNS = 999
HARSH_SIZES = (12, 15, 19)
"""Where the sign-flip interval alone undercovered a large effect near a bound (0.90-0.93: docs/metrics.md)."""


@pytest.mark.parametrize("design", DIFFERENCES + HARSH, ids=lambda design: design.name)
def test_the_paired_interval_covers_or_is_withheld(design) -> None:  # type: ignore[no-untyped-def]
    sizes = (*SIZES, *HARSH_SIZES) if design in HARSH else SIZES
    coverage = {n: difference_coverage(design, n, DIFFERENCE_STUDIES, n, SIGN_PATTERNS) for n in sizes}
    print(f"\n{design.name}: {coverage}")
    floor = MIN_TASKS_FOR_BINARY_INTERVAL if design.draws == 1 else MIN_TASKS_FOR_INTERVAL
    assert all((coverage[n] is None) == (n < floor) for n in sizes), coverage
    assert all(c >= LEAST_COVERAGE for c in coverage.values() if c is not None), coverage


@pytest.mark.parametrize("shape", SHARES.values(), ids=list(SHARES))
def test_a_share_of_reflections_interval_over_tasks_covers_at_every_size(shape: tuple[float, float]) -> None:
    coverage = {n: share_coverage(shape, n, SHARE_STUDIES, seed=n) for n in SIZES}
    print(f"\nshare Beta{shape}: {coverage}")
    assert all(c >= LEAST_COVERAGE for c in coverage.values()), coverage


def test_the_solved_interval_covers_at_every_true_share_exactly() -> None:
    # Wilson's over tasks, the interval before, falls to 0.83, 0.86, 0.90 and 0.93 at some true share at 3, 5, 10, 20.
    worst = {n: solved_coverage(n) for n in SIZES}
    print(f"\nsolved, least coverage over true shares: {worst}")
    assert all(c >= 0.95 for c in worst.values()), worst
