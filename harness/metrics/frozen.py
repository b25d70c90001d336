"""Which tasks' memory froze (RRR >= the frozen threshold): of a mapping of memories, or of a condition in the
records of an earlier run of ours; and chains frozen by their length."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

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
        measured = [reflection_repetition_rate(memory, similarity_threshold) for memory in by_repeat.values()]
        rates = [rate for rate in measured if rate is not None]
        if rates and is_frozen(sum(rates) / len(rates), frozen_threshold):
            frozen.append(task)
    return sorted(frozen)


class LengthStratum(BaseModel):
    """Chains of one length (reflections written) and how many of them froze."""

    model_config = ConfigDict(frozen=True)

    reflections: int = Field(ge=2, description="Reflections in each chain of the stratum.")
    chains: int = Field(ge=0, description="Chains of that length with a defined RRR (silent ones left out).")
    frozen: int = Field(ge=0, description="Of them, those whose RRR is at the frozen threshold or above.")


def frozen_by_length(
    memories: Iterable[Sequence[str]],
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    frozen_threshold: float = FROZEN_THRESHOLD,
) -> list[LengthStratum]:
    """Chains (each a memory, its reflections in order) grouped by their number of reflections, each group's frozen
    count: RRR takes few values on a short chain (0, 1/2 or 1 with 3 reflections), so the pooled frozen share moves
    with the lengths a condition's successes leave, and the strata show it apart from them."""
    counts: dict[int, list[int]] = {}
    for memory in memories:
        rate = reflection_repetition_rate(memory, similarity_threshold)
        if rate is not None:
            stratum = counts.setdefault(len(memory), [0, 0])
            stratum[0] += 1
            stratum[1] += is_frozen(rate, frozen_threshold)
    return [LengthStratum(reflections=n, chains=c, frozen=f) for n, (c, f) in sorted(counts.items())]
