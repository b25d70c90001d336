"""Semantic repetition rate: difflib's RRR with cosine similarity of sentence embeddings in place of the text ratio.

Pure functions over embedding vectors; embedding the texts is `harness.metrics.semantic._model`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.metrics.core import is_blank

SEMANTIC_THRESHOLD = 0.975
"""A reflection repeats an earlier one when their cosine similarity (all-MiniLM-L6-v2) is at least this.

Calibrated on the published ALFWorld runs (reflexion_run_logs and base_run_logs, 263 reflections after the
first of a task), where repeats are near-identical text and difflib's rule (ratio >= 0.85) is trustworthy: over
cosine thresholds 0.950, 0.955, ..., 0.990, 0.975 gives the highest Cohen's kappa between the two rules'
per-reflection repeat verdicts (0.76, 88% agreement): in-sample, and an agreement of two rules. Lower thresholds
flag plans that merely share the task's vocabulary: reflections of one ALFWorld task are rarely below cosine 0.9.
tests/harness/metrics/test_semantic.py recomputes the calibration, and the check against a reader where the rules
disagree (tests/fixtures/semantic_validation/: neither rule beyond chance there).
"""


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1, so a dot product is a cosine; a zero row stays zero (cosine 0 to everything)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=float), where=norms > 0)


def blank_rows_zeroed(vectors: np.ndarray, memory: Sequence[str]) -> np.ndarray:
    """`vectors` (one row per reflection of `memory`) with the rows of blank reflections zero: cosine 0 to
    everything, so a blank reflection repeats nothing, as under difflib's rule (harness.metrics.core.is_blank); a
    model gives two empty strings one vector, cosine 1."""
    rows = np.array(vectors, dtype=float)
    blank = [is_blank(reflection) for reflection in memory]
    if any(blank):
        rows[np.asarray(blank)] = 0.0
    return rows


def max_earlier_cosines(vectors: np.ndarray) -> list[float]:
    """For each reflection after the first, its highest cosine similarity to an earlier one, in order."""
    rows = _unit_rows(np.asarray(vectors, dtype=float))
    cosines = rows @ rows.T
    return [float(cosines[i, :i].max()) for i in range(1, len(rows))]


def semantic_repetition_rate(vectors: np.ndarray, threshold: float = SEMANTIC_THRESHOLD) -> float | None:
    """Semantic RRR of one task's memory, from its reflections' embeddings in the order written.

    Definition: the share of reflections after the first whose cosine similarity to some earlier
    reflection of the same task is >= `threshold`. None below two reflections, as for difflib's RRR:
    there is nothing to repeat, and 0 would read as "never repeats"; None too when every row is zero, every
    reflection blank (`blank_rows_zeroed`), as difflib's RRR of a silent memory (harness.metrics.core.is_silent).
    """
    if len(vectors) < 2 or not np.any(vectors):
        return None
    earlier = max_earlier_cosines(vectors)
    return sum(cosine >= threshold for cosine in earlier) / len(earlier)


def pooled_semantic_rate(chains: Sequence[np.ndarray], threshold: float = SEMANTIC_THRESHOLD) -> float | None:
    """Semantic RRR of a task played as several chains (experiment.repeats), one embedding array per chain.

    Each chain is measured on its own and the task's rate is the mean over the chains where it is defined, as
    difflib's RRR is pooled (harness.metrics.repeats): one chain's reflections never count as repeats of another's.
    None when no chain has two reflections.
    """
    rates = [rate for chain in chains if (rate := semantic_repetition_rate(chain, threshold)) is not None]
    return sum(rates) / len(rates) if rates else None
