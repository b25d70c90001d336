"""The share intervals and the Spearman correlation every run's report prints are scipy.stats's own floats,
computed without importing scipy.stats into the run's process."""

from __future__ import annotations

import subprocess
import sys

import random

import numpy as np
from scipy.stats import beta, binomtest, spearmanr

from harness.metrics.intervals import CONFIDENCE, clopper_pearson_bounds, wilson_interval
from harness.metrics.spearman import spearman_rrr_vs_trials
from tests.runner import ROOT


def test_wilson_is_binomtests_interval_to_the_last_bit() -> None:
    for n in range(1, 121):
        for k in range(n + 1):
            want = binomtest(k, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
            assert wilson_interval(k, n) == (float(want.low), float(want.high)), (k, n)
    want = binomtest(3, 7).proportion_ci(confidence_level=0.9, method="wilson")
    assert wilson_interval(3, 7, 0.9) == (float(want.low), float(want.high))


def test_clopper_pearson_is_the_beta_quantiles_to_the_last_bit() -> None:
    alpha = 1 - CONFIDENCE
    for n in range(1, 121):
        # Whole totals (tasks solved) and the real-valued ones of shares between 0 and 1.
        totals = np.concatenate([np.arange(n + 1, dtype=float), np.linspace(0, n, 29)])
        low, high = clopper_pearson_bounds(totals, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            want_low = np.where(totals <= 0, 0.0, beta.ppf(alpha / 2, totals, n - totals + 1))
            want_high = np.where(totals >= n, 1.0, beta.ppf(1 - alpha / 2, totals + 1, n - totals))
        assert np.array_equal(low, want_low) and np.array_equal(high, want_high), n


def test_spearman_is_spearmanrs_rho_and_p_to_the_last_bit() -> None:
    rng = random.Random(1)
    for case in range(3000):
        n = rng.randint(3, 40)
        rrr = [rng.choice([0.0, 0.25, 1 / 3, 0.5, 1.0, rng.random()]) for _ in range(n)]
        # Ties in both, and every seventh a perfect correlation (rho 1, p 0).
        trials = [3 * r for r in rrr] if case % 7 == 0 else [rng.randint(1, 6) for _ in range(n)]
        if len(set(rrr)) < 2 or len(set(trials)) < 2:
            continue
        got = spearman_rrr_vs_trials([(r, 2, t) for r, t in zip(rrr, trials)], "tasks_with_rrr")
        want = spearmanr(rrr, trials)
        assert (got.rho, got.p) == (float(want.statistic), float(want.pvalue)), (rrr, trials)


def test_the_paired_tests_intervals_and_spearman_load_no_scipy_stats_or_optimizer() -> None:
    # Every run's report imports harness.metrics.paired and computes these; scipy.stats and scipy.optimize cost each
    # run process about a second (the suite's kill-and-resume tests start dozens of run processes).
    code = (
        "import sys, harness.metrics.paired; from harness.metrics.intervals import clopper_pearson, wilson_interval; "
        "from harness.metrics.spearman import spearman_rrr_vs_trials as s; "
        "wilson_interval(2, 5); clopper_pearson(2.5, 5); s([(0.5, 2, 3), (1.0, 3, 4), (0.0, 2, 2)], 'tasks_with_rrr'); "
        "print(sorted(m for m in ('scipy.optimize', 'scipy.stats') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"
