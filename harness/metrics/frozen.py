"""Which tasks' memory froze (RRR >= the frozen threshold): of a mapping of memories, or of a condition in the
records of an earlier run of ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD, is_frozen, reflection_repetition_rate
from harness.records import TrialRecord


def frozen_ids(
    memories: Mapping[str, Sequence[str]],
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    frozen_threshold: float = FROZEN_THRESHOLD,
) -> list[str]:
    """Ids whose memory (reflections in order) is frozen at the thresholds, in the mapping's order."""
    return [
        task
        for task, memory in memories.items()
        if is_frozen(reflection_repetition_rate(memory, similarity_threshold), frozen_threshold)
    ]


def frozen_in_records(
    records: Sequence[TrialRecord],
    condition: str = "self_diagnosis",
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    frozen_threshold: float = FROZEN_THRESHOLD,
) -> list[str]:
    """Tasks whose memory under `condition` froze in a run's records, sorted, at the thresholds given. With
    repeats, a task is frozen as its metrics count it: the mean RRR of its chains."""
    chains: dict[str, dict[int, list[str]]] = {}
    mine = (r for r in records if r.condition == condition)
    for record in sorted(mine, key=lambda r: (r.task_id, r.repeat, r.trial)):
        memory = chains.setdefault(record.task_id, {}).setdefault(record.repeat, [])
        if record.reflection is not None:
            memory.append(record.reflection)
    frozen = []
    for task, by_repeat in chains.items():
        rates = [reflection_repetition_rate(memory, similarity_threshold) for memory in by_repeat.values()]
        rates = [rate for rate in rates if rate is not None]
        if rates and is_frozen(sum(rates) / len(rates), frozen_threshold):
            frozen.append(task)
    return sorted(frozen)
