"""`env.frozen_in`, shared by every domain: the tasks whose memory froze in an earlier run of this domain."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from harness.errors import GameNotFoundError
from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD
from harness.metrics.frozen import frozen_in_records
from harness.records import TRIALS_FILE, read_manifest, read_trials

_Task = TypeVar("_Task")


def _domain_of(run_dir: Path) -> str | None:
    """The env name the run's manifest states; None when it has no readable manifest (its records still count)."""
    try:
        manifest = read_manifest(run_dir)
    except (OSError, ValueError):  # pydantic's ValidationError, UnicodeDecodeError and UnreadableManifest too
        return None
    env = manifest.config.get("env") if manifest else None
    return env.get("name") if isinstance(env, dict) and isinstance(env.get("name"), str) else None


def frozen_in_run(
    run_dir: Path,
    condition: str = "self_diagnosis",
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    frozen_threshold: float = FROZEN_THRESHOLD,
) -> list[str]:
    """Tasks whose memory under `condition` froze in the run directory `run_dir` (`frozen_in_records`), sorted;
    refused in one sentence when it is no run directory or holds no trial of the condition."""
    if not (Path(run_dir) / TRIALS_FILE).is_file():
        raise GameNotFoundError(f"env.frozen_in={run_dir} is not a run directory (no {TRIALS_FILE} in it).")
    records = read_trials(Path(run_dir))
    if not any(r.condition == condition for r in records):
        raise GameNotFoundError(f"env.frozen_in={run_dir} holds no trial of condition {condition!r}.")
    return frozen_in_records(records, condition, similarity_threshold, frozen_threshold)


def frozen_tasks(
    frozen_in: str,
    condition: str,
    domain: str,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    frozen_threshold: float = FROZEN_THRESHOLD,
) -> set[str]:
    """Task ids whose memory under `condition` froze in run directory `frozen_in`, a run of `domain`, at the
    thresholds given.

    Refused in one sentence: not a run directory, a run of another domain, no trial of the condition.
    """
    run_dir = Path(frozen_in)
    if (run_dir / TRIALS_FILE).is_file():
        played = _domain_of(run_dir)
        if played is not None and played != domain:
            raise GameNotFoundError(
                f"env.frozen_in={frozen_in} is a run of {played}, not of {domain}; name a {domain} run directory."
            )
    return set(frozen_in_run(run_dir, condition, similarity_threshold, frozen_threshold))


def keep_frozen(chosen: Sequence[_Task], task_id: Callable[[_Task], str], env: Any) -> list[_Task]:
    """`chosen` as the env's `frozen_in`, `frozen_condition` and its two thresholds narrow it (all of it when
    frozen_in is unset)."""
    if env.frozen_in is None:
        return list(chosen)
    frozen = frozen_tasks(
        env.frozen_in, env.frozen_condition, env.name, env.frozen_similarity_threshold, env.frozen_rrr_threshold
    )
    return [task for task in chosen if task_id(task) in frozen]
