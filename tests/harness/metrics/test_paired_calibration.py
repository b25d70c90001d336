"""Calibration of the paired tests' p-values: under the null each one is as uniform as its test allows, so a p-value
made conservative (doubled) fails here as surely as one made liberal (halved); a bound on the false-positive rate
alone would pass the first.

How each test is held to its null, and why:
- McNemar's exact test is discrete: given m discordant tasks its p takes at most m/2 + 1 values, and its
  false-positive rate at alpha 0.05 sits well below alpha. A uniformity test of its raw p would
  reject a correct McNemar, and a rate compared with alpha would let a doubled p through. So it is held to its exact
  null distribution instead (tests/harness/metrics/exact_null.py, computed without the harness): given m the gained
  count is Binomial(m, 1/2) under the null, an exact p is the null probability of an outcome as extreme or more, and
  the randomized transform u = p - V * P0(as extreme exactly), V uniform, is uniform for that p and for no other.
  Its false-positive rate is compared from both sides with its exact size given each study's m (0.023 over these
  studies' 30 tasks at a median solve rate of 0.25: few tasks are discordant).
- The paired permutation test is exact under sign flips given the tasks' |differences|. With shares (RRR over 4
  reflections, the on-task rate over 5, solved over 3 repeats) the differences tie and its p is discrete too, so the
  same transform is applied with the exact sign-flip distribution of the sum, by convolution over the differences'
  integer numerators; its rate is compared with its exact size the same way. The harness's p is scipy's Monte Carlo
  estimate (999 random sign patterns here): a few thousandths from the exact p, far below what the uniformity test
  resolves at these sizes.
- Sharp: the transforms are exactly uniform, so the uniformity test (Kolmogorov-Smirnov, at level LEVEL) has
  nothing to forgive; a doubled or halved p moves the transform's distribution by about 0.5.
- McNemar is also held to it over MCNEMAR_STUDIES studies drawn at once with numpy (its p depends on two counts
  only); every test is held to it through the report's own path from records (tests/harness/metrics/
  simulated_studies.py: the null comparison of each study, measured by `effects_of_chains`).
The interval inverts the permutation test, so under the null it holds 0 exactly when p is above alpha
(test_paired_simulation.py); its coverage of a planted difference, test_interval_coverage.py's.

Measured (seeds 20251204 and 20251202, printed by `pytest -s`): McNemar over 20,000 null studies, KS D 0.006
(p 0.42), 447 rejected against an exact expectation of 457.5; through records, 200 null comparisons, McNemar KS
D 0.056 (p 0.54), 1 rejected (expected 4.8), the permutation tests pooled (600) KS D 0.045 (p 0.17), 20 rejected
(expected 20.4). Every p doubled at its source and capped at 1, as a p-value is: KS D 0.33, 0.36 and 0.45 (p below
1e-60), McNemar's 227 rejected of 20,000 (uncapped, p above 1 made the D 0.60, 0.59 and 0.58); halved: D 0.50, 0.53
and 0.51, McNemar's 966 rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
from scipy.special import expit, logit
from scipy.stats import binom, kstest

from harness.metrics.paired import ALPHA, mcnemar_exact
from tests.harness.metrics.exact_null import (
    mcnemar_null,
    mcnemar_size,
    randomized_pit,
    sign_flip_null,
    sign_flip_size,
)
from tests.harness.metrics.simulated_studies import (
    N_TASKS,
    NULL_CONDITION,
    PLANTED,
    TESTS,
    Comparison,
    measured_studies,
)

LEVEL = 0.001
"""The calibration checks' own level: a correct test fails one of them about once in a thousand seeds."""
MCNEMAR_STUDIES = 20_000
SEED = 20251204


_mcnemar_null = cache(mcnemar_null)
_mcnemar_size = cache(mcnemar_size)


@cache
def _harness_mcnemar_p(gained: int, discordant: int) -> float:
    """The harness's McNemar p of `gained` of `discordant` discordant tasks."""
    rest = discordant - gained
    return mcnemar_exact([True] * rest + [False] * gained, [False] * rest + [True] * gained)[1]


def _in_band(rejected: int, sizes: Sequence[float]) -> tuple[bool, str]:
    """Whether `rejected` of len(sizes) null studies is within a two-sided band of level LEVEL around what the exact
    sizes expect (a binomial band at their mean size: at least as wide as the exact Poisson-binomial one)."""
    low, high = binom.interval(1 - LEVEL, len(sizes), float(np.mean(sizes)))
    shown = f"{rejected} of {len(sizes)} null studies rejected at alpha {ALPHA}, exact expectation {sum(sizes):.1f}"
    return low <= rejected <= high, f"{shown} (band {low:.0f}-{high:.0f})"


def _uniform(pits: Sequence[float], what: str) -> tuple[bool, str]:
    found = kstest(pits, "uniform")
    shown = f"{what}: Kolmogorov-Smirnov against Uniform(0, 1), D {found.statistic:.3f}, p {found.pvalue:.3g}"
    return found.pvalue >= LEVEL, shown


def test_mcnemar_p_values_follow_their_exact_null_distribution() -> None:
    rng = np.random.default_rng(SEED)
    difficulty = rng.normal(0.0, 1.0, (MCNEMAR_STUDIES, N_TASKS))
    chance = expit(logit(PLANTED["solved"][0]) - difficulty)
    control, condition = (rng.random(chance.shape) < chance for _ in range(2))
    gained, lost = (condition & ~control).sum(axis=1), (control & ~condition).sum(axis=1)
    p = [_harness_mcnemar_p(int(k), int(k + j)) for k, j in zip(gained, lost)]
    pits = [randomized_pit(p_k, _mcnemar_null(int(k), int(k + j))[1], rng) for p_k, k, j in zip(p, gained, lost)]
    uniform, shown = _uniform(pits, f"McNemar over {MCNEMAR_STUDIES} null studies")
    sizes = [_mcnemar_size(int(k + j), ALPHA) for k, j in zip(gained, lost)]
    in_band, rate = _in_band(sum(p_k < ALPHA for p_k in p), sizes)
    print(f"\n{shown}; {rate}")
    assert uniform and in_band, f"{shown}; {rate}"


def _pit_and_size(name: str, comparison: Comparison, rng: np.random.Generator) -> tuple[float, float]:
    """The randomized transform of the comparison's p under its test's exact null, and the test's exact size, both
    given the per-task differences the report measured."""
    p = comparison.row.p
    assert p is not None
    if name == "solved McNemar":
        d = comparison.differences
        gained, discordant = int(np.sum(d > 0)), int(np.sum(d != 0))
        return randomized_pit(p, mcnemar_null(gained, discordant)[1], rng), mcnemar_size(discordant, ALPHA)
    numerators = np.rint(comparison.differences * TESTS[name][1]).astype(int)
    return randomized_pit(p, sign_flip_null(numerators)[1], rng), sign_flip_size(numerators, ALPHA)


def test_null_p_values_through_the_reports_path_follow_their_exact_null_distributions() -> None:
    rng = np.random.default_rng(SEED + 1)
    null = [study[NULL_CONDITION] for study in measured_studies()]
    results = []
    for kind, names in (("McNemar", ["solved McNemar"]), ("permutation", ["solved 3 repeats", "RRR", "on-task rate"])):
        comparisons = [(name, study[name]) for study in null for name in names]
        pits, sizes = zip(*(_pit_and_size(name, comparison, rng) for name, comparison in comparisons))
        rejected = sum(comparison.row.p < ALPHA for _, comparison in comparisons)  # type: ignore[operator]
        results += [_uniform(pits, f"{kind} ({', '.join(names)}), {len(null)} studies"), _in_band(rejected, sizes)]
    shown = "; ".join(text for _, text in results)
    print(f"\n{shown}")
    assert all(ok for ok, _ in results), shown
