"""RRR on the tasks failed twice under both conditions is conditional on the conditions' own success: where a
condition helps solving and leaves repetition alone, its chains there are shorter, and a shorter chain has fewer
earlier reflections to repeat. The effects' matched RRR (`rrr_matched`: both sides over as many reflections) stays
near alpha there and still finds repetition that is lowered.

The simulation is benchmarks/post_treatment.py's (134 tasks, 5 trials; its docstring has the design), which prints
the rates at 2,000 studies (docs/metrics.md quotes them); here 1,000 null studies and 100 planted ones.
"""

from __future__ import annotations

from scipy.stats import binom

from benchmarks.post_treatment import rejection_rates
from harness.metrics.chain_values import matched_rrr
from harness.metrics.paired import ALPHA

STUDIES = 1000
LEVEL = 0.001


def test_matched_rrr_cuts_both_sides_to_the_fewer_reflections() -> None:
    # Control: 4 reflections, the last two repeating; condition: 2 reflections, none repeating. Over all of them
    # 2/3 against 0; over the first 2 of each, 0 against 0.
    assert matched_rrr([[False, True, True]], [[False]]) == (0.0, 0.0)
    # With repeats each side is the mean over its chains, every chain cut to the fewest flags (2): 0.75 against 0.5.
    assert matched_rrr([[True, True], [False, True]], [[True, False, False]]) == (0.75, 0.5)
    assert matched_rrr([], [[True]]) is None


def test_rrr_finds_an_effect_the_condition_does_not_have_and_matched_rrr_stays_near_alpha() -> None:
    whole, matched = rejection_rates(STUDIES, seed=1)
    low, high = binom.interval(1 - LEVEL, STUDIES, ALPHA)
    print(f"\nrejected at {ALPHA} over {STUDIES} null studies: RRR {whole:.3f}, matched {matched:.3f}")
    assert low / STUDIES <= matched <= high / STUDIES
    assert whole > high / STUDIES


def test_matched_rrr_finds_repetition_that_is_lowered() -> None:
    _, matched = rejection_rates(100, seed=2, planted=True)
    print(f"\nmatched RRR's power over 100 planted studies: {matched:.2f}")
    assert matched >= 0.5
