"""Which tasks' memory froze (RRR >= 0.5): of a mapping of memories, or of a condition in an earlier run of ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.errors import GameNotFoundError
from harness.metrics.core import is_frozen, reflection_repetition_rate
from harness.records import TRIALS_FILE, read_trials


def frozen_ids(memories: Mapping[str, Sequence[str]]) -> list[str]:
    """Ids whose memory (reflections in order) has RRR >= 0.5, in the mapping's order."""
    return [task for task, memory in memories.items() if is_frozen(reflection_repetition_rate(memory))]


def frozen_in_run(run_dir: Path, condition: str = "self_diagnosis") -> list[str]:
    """Tasks whose memory under `condition` froze in an earlier run of this harness, sorted."""
    if not (Path(run_dir) / TRIALS_FILE).is_file():
        raise GameNotFoundError(f"env.frozen_in={run_dir} is not a run directory (no {TRIALS_FILE} in it).")
    records = [r for r in read_trials(Path(run_dir)) if r.condition == condition]
    if not records:
        raise GameNotFoundError(f"env.frozen_in={run_dir} holds no trial of condition {condition!r}.")
    memories: dict[str, list[str]] = {}
    for record in sorted(records, key=lambda r: (r.task_id, r.trial)):
        memories.setdefault(record.task_id, [])
        if record.reflection is not None:
            memories[record.task_id].append(record.reflection)
    return sorted(frozen_ids(memories))
