"""A test instrument: the exact null distributions of the paired tests' p-values, computed here without the harness,
and the randomized probability integral transform that makes a discrete exact p-value exactly uniform.

An exact test's p is the null probability of an outcome at least as extreme as the one seen: p = P0(P <= p). With
the null probability of the outcomes exactly as extreme, a = P0(P = p), and V ~ Uniform(0, 1) drawn apart,
u = p - V a is Uniform(0, 1) under the null, however few values p can take; a p that is not the exact one (doubled,
halved, or computed from another null) makes u non-uniform.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binom


def _binomial_null(discordant: int) -> tuple[np.ndarray, np.ndarray]:
    """Each outcome's distance from the centre, |2K - m|, and its null probability: K ~ Binomial(m, 1/2)."""
    k = np.arange(discordant + 1)
    return np.abs(2 * k - discordant), binom.pmf(k, discordant, 0.5)


def _sign_flip_null(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each sum's distance from 0, |S|, and its null probability: S = sum of s_i size_i with independent fair signs,
    by convolution (2**n patterns never listed)."""
    reach = int(sizes.sum())
    weights = np.zeros(2 * reach + 1)
    weights[reach] = 1.0
    for size in sizes[sizes > 0]:
        # Each sum moves up or down by `size` with probability 1/2; no weight reaches the array's ends, so the roll's
        # wrap-around only moves zeros.
        weights = 0.5 * (np.roll(weights, int(size)) + np.roll(weights, -int(size)))
    return np.abs(np.arange(-reach, reach + 1)), weights


def _tail(distance: np.ndarray, weights: np.ndarray, observed: int) -> tuple[float, float]:
    """(p, a): the null probability of a distance at least the observed one, and of exactly it."""
    return float(weights[distance >= observed].sum()), float(weights[distance == observed].sum())


def _size(distance: np.ndarray, weights: np.ndarray, alpha: float) -> float:
    """The null probability that p < alpha: the test's exact size given what it conditions on."""
    p = np.array([weights[distance >= d].sum() for d in distance])
    return float(weights[p < alpha].sum())


def mcnemar_null(gained: int, discordant: int) -> tuple[float, float]:
    """(p, a) of McNemar's exact two-sided test: given m discordant tasks the gained count K is Binomial(m, 1/2) under
    the null, symmetric, so as extreme means as far from m/2. No discordant task: p = a = 1."""
    return _tail(*_binomial_null(discordant), abs(2 * gained - discordant))


def mcnemar_size(discordant: int, alpha: float) -> float:
    """McNemar's exact size at `alpha` given m discordant tasks: below alpha, as the test is discrete."""
    return _size(*_binomial_null(discordant), alpha)


def sign_flip_null(numerators: np.ndarray) -> tuple[float, float]:
    """(p, a) of the two-sided paired permutation test of the mean difference over every sign pattern, the
    differences given as integer numerators (a share of n draws times n): p = P0(|S| >= |s|), a = P0(|S| = |s|) for
    the observed sum s."""
    return _tail(*_sign_flip_null(np.abs(numerators)), abs(int(numerators.sum())))


def sign_flip_size(numerators: np.ndarray, alpha: float) -> float:
    """The permutation test's exact size at `alpha` given the tasks' |differences|."""
    return _size(*_sign_flip_null(np.abs(numerators)), alpha)


def randomized_pit(p: float, atom: float, rng: np.random.Generator) -> float:
    """u = p - V * atom: uniform under the null when `p` is the exact p-value and `atom` its null probability."""
    return p - float(rng.random()) * atom
