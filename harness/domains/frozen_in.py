"""`env.frozen_in`, shared by every domain: the tasks whose memory froze in an earlier run of this domain.

The selection run is read once per invocation (`read_selection`): the composition root reads it, lends it to the
domain's build (`lent_selection`), where `keep_frozen` selects on its records, and hands it to the run, which records
its state in the manifest and compares its answers with the run's (harness/run/held_out.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from harness.errors import GameNotFoundError
from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD
from harness.metrics.frozen import frozen_in_records
from harness.records import MANIFEST_FILE, TRIALS_FILE, Manifest, TrialRecord, parse_trials, read_manifest

_Task = TypeVar("_Task")


@dataclass(frozen=True)
class SelectionReading:
    """A selection run read once: its manifest (None when it has none that reads), its records, and its
    trials.jsonl's lines and SHA-256 as read."""

    run_dir: Path
    manifest: Manifest | None
    records: list[TrialRecord]
    lines: int
    trials_sha256: str


def read_selection(run_dir: Path) -> SelectionReading:
    """The run directory `run_dir` read once; refused in one sentence when it holds no trials.jsonl."""
    trials = Path(run_dir) / TRIALS_FILE
    if not trials.is_file():
        raise GameNotFoundError(f"env.frozen_in={run_dir} is not a run directory (no {TRIALS_FILE} in it).")
    data = trials.read_bytes()
    return SelectionReading(
        run_dir=Path(run_dir),
        manifest=_manifest_of(Path(run_dir)),
        records=parse_trials(data, trials)[0],
        lines=sum(1 for line in data.splitlines() if line.strip()),
        trials_sha256=hashlib.sha256(data).hexdigest(),
    )


# The reading the composition root lends to a domain's build: builders take their env config alone (a plugin's
# too), so the records reach keep_frozen this way rather than by a second reading.
_LENT: ContextVar[SelectionReading | None] = ContextVar("lent_selection", default=None)


@contextmanager
def lent_selection(reading: SelectionReading | None) -> Iterator[None]:
    """`keep_frozen` selects on `reading` (when it is the run `env.frozen_in` names) within this block."""
    token = _LENT.set(reading)
    try:
        yield
    finally:
        _LENT.reset(token)


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
    reading: SelectionReading | None = None,
) -> list[str]:
    """Tasks whose memory under `condition` froze in the run directory `run_dir` (`frozen_in_records`), sorted;
    refused in one sentence when it is no run directory or holds no trial of the condition. `reading`: that run,
    already read."""
    records = (reading or read_selection(Path(run_dir))).records
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
    the thresholds given; read from the reading lent for it (`lent_selection`), else from the directory.

    Refused in one sentence: not a run directory, no readable manifest or one that does not say finished (a run
    still playing, stopped or failed: its frozen set is not final), a run of another domain, no trial of the
    condition.
    """
    run_dir = Path(frozen_in)
    lent = _LENT.get()
    reading = lent if lent is not None and lent.run_dir == run_dir else read_selection(run_dir)
    manifest = reading.manifest
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
    return set(frozen_in_run(run_dir, condition, similarity_threshold, frozen_threshold, reading))


def keep_frozen(chosen: Sequence[_Task], task_id: Callable[[_Task], str], env: Any) -> list[_Task]:
    """`chosen` as the env's `frozen_in`, `frozen_condition` and its two thresholds narrow it (all of it when
    frozen_in is unset)."""
    if env.frozen_in is None:
        return list(chosen)
    frozen = frozen_tasks(
        env.frozen_in, env.frozen_condition, env.name, env.frozen_similarity_threshold, env.frozen_rrr_threshold
    )
    return [task for task in chosen if task_id(task) in frozen]
