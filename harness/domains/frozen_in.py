"""`env.frozen_in`, shared by every domain: the tasks whose memory froze in an earlier run of this domain."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from harness.errors import GameNotFoundError
from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD
from harness.metrics.frozen import frozen_in_records
from harness.records import MANIFEST_FILE, TRIALS_FILE, Manifest, read_manifest, read_trials

_Task = TypeVar("_Task")


def _manifest_of(run_dir: Path) -> Manifest | None:
    """The run's manifest; None when it has none or none that reads."""
    try:
        return read_manifest(run_dir)
    except (OSError, ValueError):  # pydantic's ValidationError, UnicodeDecodeError and UnreadableManifest too
        return None


def _domain_of(manifest: Manifest) -> str | None:
    """The env name the manifest states, if it states one."""
    env = manifest.config.get("env")
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
    """Task ids whose memory under `condition` froze in run directory `frozen_in`, a finished run of `domain`, at
    the thresholds given.

    Refused in one sentence: not a run directory, no readable manifest or one that does not say finished (a run
    still playing, stopped or failed: its frozen set is not final), a run of another domain, no trial of the
    condition.
    """
    run_dir = Path(frozen_in)
    if (run_dir / TRIALS_FILE).is_file():
        manifest = _manifest_of(run_dir)
        if manifest is None:
            raise GameNotFoundError(
                f"env.frozen_in={frozen_in} has no readable {MANIFEST_FILE}, so whether its trials are all played "
                "cannot be told; name a finished run directory."
            )
        if manifest.status != "finished":
            raise GameNotFoundError(
                f"env.frozen_in={frozen_in} has not finished (its {MANIFEST_FILE} says {manifest.status}), so the "
                "tasks frozen in it may still change; finish it (run its command again) and select on it then."
            )
        played = _domain_of(manifest)
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
