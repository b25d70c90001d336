"""report.md's exact tests of solved counts: every pair of conditions, Fisher's p and odds ratio, and Holm's p."""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.metrics.fisher import PairwiseFisher
from harness.report.document import Paragraph, Section, Table

TITLE = "Solved: exact tests between conditions"
FISHER_NOTE = (
    "Fisher's exact test (two-sided, scipy.stats.fisher_exact) on each pair's 2x2 table of solved and unsolved "
    "tasks. Odds ratio: (solved / unsolved) under A over the same under B; inf or 0 when a cell is empty, n/a when "
    "neither condition has both outcomes. p is uncorrected; p (Holm) is adjusted by Holm's step-down method over "
    "the {pairs} pair(s) of this table, the one to read when several pairs are compared. The test takes the two "
    "conditions' tasks as independent samples: when both played the same tasks that pairing is ignored; read it "
    "only where the tasks differ, and the Effects table below "
    "(paired over tasks, McNemar's exact test on solved) where they are the same."
)
HEADER = ["condition A", "condition B", "solved A", "solved B", "odds ratio", "p (Fisher)", "p (Holm)"]


def _odds_ratio(value: float | None) -> str:
    return "n/a" if value is None else "inf" if value == math.inf else f"{value:.2f}"


def _row(pair: PairwiseFisher) -> list[str]:
    return [
        pair.a,
        pair.b,
        f"{pair.solved_a}/{pair.n_a}",
        f"{pair.solved_b}/{pair.n_b}",
        _odds_ratio(pair.test.odds_ratio),
        f"{pair.test.p:.3g}",
        f"{pair.p_holm:.3g}",
    ]


def fisher_section(pairs: Sequence[PairwiseFisher]) -> Section:
    """The table and how to read it, or why there is no pair to test."""
    if not pairs:
        return Section(TITLE, [Paragraph("One condition only: no pair to test.")])
    table = Table(HEADER, [_row(pair) for pair in pairs])
    return Section(TITLE, [table, Paragraph(FISHER_NOTE.format(pairs=len(pairs)))])
