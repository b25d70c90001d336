"""How often the harness's intervals cover the true value, by the number of tasks: the paired difference's interval
(harness.metrics.paired.difference_intervals: the sign-flip inversion, withheld below its floor, an exact bound
where every difference is alike), a share of reflections' interval over tasks (harness.metrics.task_shares) and the
solved share's (Clopper-Pearson over tasks, computed exactly).

    python -m benchmarks.interval_coverage [--studies 2000] [--smoke]

Designs. Differences: the paired simulation's (tests/harness/metrics/simulated_studies.py): each task has a latent
difficulty d ~ Normal(0, sd 1) shared by both conditions, and its value under a condition is the share of k draws at
expit(logit(p) - d): solved (k 1, p 0.25 vs 0.75), solved over 3 repeats (k 3), RRR over 4 reflections (0.3 vs 0.6),
the on-task rate over 5 (0.6 vs 0.3), each also under its null (the control's p on both sides), and two harsher
ones (solved 0.7 vs 0.95, RRR 0.05 vs 0.3) where a large effect sits near a bound; the true mean difference
E[p_b(d) - p_a(d)] by Gauss-Hermite quadrature. Shares: each task's share drawn from a Beta distribution (uniform,
skewed to 1, skewed to 0, near 0-or-1), 2 to 9 reflections a task, each on task with the task's share; the true
value is the Beta's mean. The tests (tests/harness/metrics/test_interval_coverage.py) run these at 3, 5, 10 and 20
tasks with fewer studies; this prints more sizes from 3 to 30 (`REPORTED_SIZES`).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.special import expit, logit
from scipy.stats import binom

from benchmarks._output import add_output_arguments, machine, markdown_table
from harness.metrics.intervals import clopper_pearson, clopper_pearson_bounds
from harness.metrics.paired import difference_intervals
from harness.metrics.sign_flip import N_RESAMPLES

SIZES = (3, 5, 10, 20)
"""The numbers of tasks the acceptance names: every committed demo has 3 to 5."""


@dataclass(frozen=True)
class DifferenceDesign:
    name: str
    draws: int
    control: float
    condition: float


DIFFERENCES = (
    DifferenceDesign("solved", 1, 0.25, 0.75),
    DifferenceDesign("solved, null", 1, 0.25, 0.25),
    DifferenceDesign("solved 3 repeats", 3, 0.25, 0.75),
    DifferenceDesign("RRR", 4, 0.3, 0.6),
    DifferenceDesign("RRR, null", 4, 0.3, 0.3),
    DifferenceDesign("on-task rate", 5, 0.6, 0.3),
)
"""The paired simulation's designs."""
HARSH = (DifferenceDesign("solved 0.7 vs 0.95", 1, 0.7, 0.95), DifferenceDesign("RRR 0.05 vs 0.3", 4, 0.05, 0.3))
"""Large effects near a bound: the differences are skewed, which a sign-flip interval assumes they are not (solved's
interval joins Tango's for them; RRR's is withheld where they make it undercover)."""

REPORTED_SIZES = (3, 5, 8, 10, 12, 13, 14, 15, 17, 19, 20, 25, 30)
"""The sizes the benchmark prints (docs/metrics.md's table)."""

SHARES = {"uniform": (1.0, 1.0), "skewed to 1": (2.0, 0.3), "skewed to 0": (0.3, 2.0), "0 or 1": (0.1, 0.1)}
"""Beta(a, b) of the tasks' shares."""


def true_difference(design: DifferenceDesign, sd: float = 1.0) -> float:
    nodes, weights = hermegauss(80)
    weights = weights / weights.sum()
    shift = sd * nodes
    return float(np.sum(weights * (expit(logit(design.condition) - shift) - expit(logit(design.control) - shift))))


def difference_coverage(
    design: DifferenceDesign,
    tasks: int,
    studies: int,
    seed: int,
    n_resamples: int = N_RESAMPLES,
    min_tasks: int | None = None,
) -> float | None:
    """Share of `studies` whose interval holds the true mean difference; None when the interval is withheld at
    this size (every study's). `n_resamples`: the sign patterns drawn when all of them are too many; `min_tasks`:
    the floor below which the interval is withheld (the report's by default; lowered, what it would cover there).
    One draw a task (solved without repeats) is McNemar's case, whose interval also holds Tango's."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.0, (studies, tasks))
    control = rng.binomial(design.draws, expit(logit(design.control) - difficulty)) / design.draws
    condition = rng.binomial(design.draws, expit(logit(design.condition) - difficulty)) / design.draws
    low, high, why = difference_intervals(
        condition - control, (-1.0, 1.0), n_resamples=n_resamples, min_tasks=min_tasks, binary=design.draws == 1
    )
    given = np.array([reason is None for reason in why])
    if not given.any():
        return None
    truth = true_difference(design)
    # Ends are sums of shares in float: a hair of rounding must not count a bound on the truth as a miss.
    held = (low[given] <= truth + 1e-9) & (truth - 1e-9 <= high[given])
    return float(np.mean(held))


def share_coverage(shape: tuple[float, float], tasks: int, studies: int, seed: int) -> float:
    """Share of `studies` whose interval over tasks holds the mean share: task_share's interval (Clopper-Pearson
    over tasks at the sum of the tasks' shares), for every study at once."""
    rng = np.random.default_rng(seed)
    reflections = rng.integers(2, 10, (studies, tasks))
    counts = rng.binomial(reflections, rng.beta(*shape, (studies, tasks)))
    low, high = clopper_pearson_bounds(np.minimum((counts / reflections).sum(axis=1), tasks), tasks)
    truth = shape[0] / (shape[0] + shape[1])
    return float(np.mean((low - 1e-12 <= truth) & (truth <= high + 1e-12)))


def solved_coverage(tasks: int, grid: int = 99) -> float:
    """The least coverage of the solved share's Clopper-Pearson interval over tasks at any true share on a grid,
    exactly: each task solved or not, the count binomial."""
    worst = 1.0
    bounds = [clopper_pearson(k, tasks) for k in range(tasks + 1)]
    for p in np.linspace(0.01, 0.99, grid):
        held = sum(binom.pmf(k, tasks, p) for k in range(tasks + 1) if bounds[k][0] <= p <= bounds[k][1])
        worst = min(worst, float(held))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=2000, help="simulated studies per design and size")
    add_output_arguments(parser, "interval_coverage")
    args = parser.parse_args()
    studies = 50 if args.smoke else args.studies
    sizes = SIZES if args.smoke else REPORTED_SIZES
    rows, result = [], {}
    for design in (*DIFFERENCES, *HARSH):
        cells = [difference_coverage(design, n, studies, seed=n) for n in sizes]
        # Below the floor, what the interval would cover if it were given (none at 5 tasks or fewer: it can reject
        # nothing there).
        unfloored = [difference_coverage(design, n, studies, seed=n, min_tasks=1) for n in sizes]
        result[design.name] = cells
        result[f"{design.name}, without the floor"] = unfloored
        shown = [
            f"{c:.3f}" if c is not None else "none" if u is None else f"withheld ({u:.3f})"
            for c, u in zip(cells, unfloored)
        ]
        rows.append((f"difference: {design.name}", *shown))
    for name, shape in SHARES.items():
        cells = [share_coverage(shape, n, studies, seed=n) for n in sizes]
        result[f"share: {name}"] = cells
        rows.append((f"share: {name}", *(f"{c:.3f}" for c in cells)))
    cells = [solved_coverage(n) for n in sizes]
    result["solved (exact, least)"] = cells
    rows.append(("solved, least over shares (exact)", *(f"{c:.3f}" for c in cells)))
    print(markdown_table(("design", *(f"{n} tasks" for n in sizes)), rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "studies": studies, "sizes": sizes, "coverage": result}))


if __name__ == "__main__":
    main()
