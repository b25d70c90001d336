"""Values of one chain (a task's trials under one condition in one repeat) and of a task's chains: what the paired
effects compare and the figures measured per chain read (harness.metrics.figures)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import TaskMetrics, is_silent, most_similar_earlier, reflection_repetition_rate
from harness.metrics.figure_model import Chain
from harness.metrics.thresholds import Thresholds


def chain_solved(chain: Chain, _: Thresholds) -> float:
    return 1.0 if any(r.success for r in chain) else 0.0


def chain_rrr(chain: Chain, thresholds: Thresholds) -> float | None:
    memory = [r.reflection for r in chain if r.reflection is not None]
    return reflection_repetition_rate(memory, thresholds.similarity_threshold)


def _labels(chain: Chain) -> list[str]:
    return [r.reflection_identity.label for r in chain if r.reflection is not None and r.reflection_identity]


def chain_on_task_rate(chain: Chain, _: Thresholds) -> float | None:
    labels = _labels(chain)
    return labels.count("on_task") / len(labels) if labels else None


def task_on_task_rate(chains: Sequence[Chain], _: Thresholds) -> float | None:
    """A task's reflections labelled on_task / its labelled reflections, its chains pooled: the condition table's
    per-task share (harness.metrics.task_shares), so the effects and the table show one estimand."""
    labels = [label for chain in chains for label in _labels(chain)]
    return labels.count("on_task") / len(labels) if labels else None


def chain_first_solving_trial(chain: Chain, _: Thresholds) -> float | None:
    return next((float(r.trial) for r in chain if r.success), None)


def mean_first_solving_trial(tasks: Sequence[TaskMetrics]) -> float | None:
    """Mean over the solved tasks of each one's first solving trial (0-based; with repeats, the earliest of its
    chains, as the RRR grid's S@t); None, never 0, when no task is solved."""
    won = [task.solved_trial for task in tasks if task.solved_trial is not None]
    return sum(won) / len(won) if won else None


def _memory(chain: Chain) -> list[str]:
    return [r.reflection for r in chain if r.reflection is not None]


def chain_silent(chain: Chain, _: Thresholds) -> float | None:
    """1 when the chain's two or more reflections are all blank, 0 when some is not; None below two reflections."""
    memory = _memory(chain)
    return None if len(memory) < 2 else float(is_silent(memory))


def chain_trials_to_win(chain: Chain, _: Thresholds) -> float:
    """The trials before the chain's first win, or every trial it played when it won none: defined on every chain,
    so no chain is selected by its own outcome (a restricted mean, where the first solving trial is conditional)."""
    return next((float(r.trial) for r in chain if r.success), float(len(chain)))


def repeat_flags(memory: Sequence[str], threshold: float) -> list[bool] | None:
    """Whether each reflection after the first repeats an earlier one (ratio >= threshold); None where the RRR is
    undefined (fewer than two reflections, or all blank). RRR is their mean, and the flags of a memory's first L
    reflections are the first L - 1 flags: a reflection repeats, or not, whatever comes after it."""
    if len(memory) < 2 or is_silent(memory):
        return None
    return [match is not None and match.repeats for match in most_similar_earlier(memory, threshold)[1:]]


def matched_rrr(control: Sequence[Sequence[bool]], condition: Sequence[Sequence[bool]]) -> tuple[float, float] | None:
    """Both sides' RRR over as many reflections: each chain's repeat flags (`repeat_flags`) cut to the fewest any
    chain of either side has, L - 1 (L at least 2), the side's value the mean over its chains. None when a side has
    no chain with a defined RRR."""
    if not control or not condition:
        return None
    length = min(len(flags) for flags in (*control, *condition))
    if length < 1:
        return None

    def rate(chains: Sequence[Sequence[bool]]) -> float:
        return sum(sum(flags[:length]) / length for flags in chains) / len(chains)

    return rate(control), rate(condition)


def task_matched_rrr(control: Sequence[Chain], condition: Sequence[Chain], thresholds: Thresholds
                     ) -> tuple[float, float] | None:  # fmt: skip
    """`matched_rrr` of a task from its chains under the control and under the condition (chains without a defined
    RRR left out)."""

    def flags(chains: Sequence[Chain]) -> list[list[bool]]:
        found = (repeat_flags(_memory(chain), thresholds.similarity_threshold) for chain in chains)
        return [chain_flags for chain_flags in found if chain_flags is not None]

    return matched_rrr(flags(control), flags(condition))
