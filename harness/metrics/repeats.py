"""A task's repeats pooled: each repeat (experiment.repeats) is an independent chain of trials, measured on its own,
and the task's figures are pooled over its chains so that a task counts once in every denominator."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import FROZEN_THRESHOLD, MentionCounts, TaskMetrics, is_frozen
from harness.metrics.identity import IdentityCounts


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def pool_repeats(chains: Sequence[TaskMetrics], frozen_threshold: float = FROZEN_THRESHOLD) -> TaskMetrics:
    """One task's chains (one `task_metrics` per repeat) as the task's figures.

    One chain is returned as it is. Several: RRR is the mean over the chains where it is defined, frozen is that
    mean at the threshold (a task is frozen or not, never a share of its chains), solved_share is the share of
    chains won; counts (trials, reflections, mentions, identity labels, malformed answers) are summed over the
    chains.
    """
    if not chains:
        raise ValueError("pool_repeats needs at least one chain.")
    keys = {(c.task_id, c.condition) for c in chains}
    if len(keys) > 1:
        raise ValueError(f"chains of one task and condition expected, got {sorted(keys)}.")
    if len(chains) == 1:
        return chains[0]
    rrr = _mean([c.rrr for c in chains if c.rrr is not None])
    won = [c.solved_trial for c in chains if c.solved_trial is not None]
    identities = [c.identity for c in chains if c.identity is not None]
    first = chains[0]
    return TaskMetrics(
        task_id=first.task_id,
        condition=first.condition,
        target_object=first.target_object,
        repeats=len(chains),
        trials=sum(c.trials for c in chains),
        reflections=sum(c.reflections for c in chains),
        rrr=rrr,
        frozen=is_frozen(rrr, frozen_threshold),
        solved=any(c.solved for c in chains),
        solved_trial=min(won) if won else None,
        solved_share=sum(c.solved for c in chains) / len(chains),
        mentions=sum((c.mentions for c in chains), MentionCounts(reflections=0, strict=0, normalized=0)),
        # Summed only when every chain was labelled, as condition_metrics does over tasks.
        identity=sum(identities, IdentityCounts()) if len(identities) == len(chains) else None,
        malformed=sum(c.malformed for c in chains),
    )


def spearman_pairs(tasks: Sequence[TaskMetrics]) -> list[tuple[float | None, int, float]]:
    """(rrr, reflections, trials played) per task for the Spearman correlation: trials are the mean over the task's
    chains, so a task of k repeats is one point, not k."""
    return [(t.rrr, t.reflections, t.trials / t.repeats) for t in tasks]
