"""Which tasks' memory froze (RRR >= the frozen threshold): of a mapping of memories, or of a condition in an earlier
run of ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.errors import GameNotFoundError
from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD, is_frozen, reflection_repetition_rate
from harness.records import TRIALS_FILE, read_trials


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


def frozen_in_run(
    run_dir: Path,
    condition: str = "self_diagnosis",
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    frozen_threshold: float = FROZEN_THRESHOLD,
) -> list[str]:
    """Tasks whose memory under `condition` froze in an earlier run of this harness, sorted, at the thresholds of
    the run that selects. With repeats, a task is frozen as its metrics count it: the mean RRR of its chains."""
    if not (Path(run_dir) / TRIALS_FILE).is_file():
        raise GameNotFoundError(f"env.frozen_in={run_dir} is not a run directory (no {TRIALS_FILE} in it).")
    records = [r for r in read_trials(Path(run_dir)) if r.condition == condition]
    if not records:
        raise GameNotFoundError(f"env.frozen_in={run_dir} holds no trial of condition {condition!r}.")
    chains: dict[str, dict[int, list[str]]] = {}
    for record in sorted(records, key=lambda r: (r.task_id, r.repeat, r.trial)):
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
