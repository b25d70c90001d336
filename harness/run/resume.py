"""Resuming a run directory: its manifest read back and compared with the configuration that resumes it.

Called with the run directory's lock held (`harness.run.lock`): what is checked here is what the run then builds on.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.errors import RecordCorruptError, RecordsWithoutManifestError, ResumeMismatchError
from harness.records import MANIFEST_FILE, TRIALS_FILE, Manifest, read_manifest, read_trials
from harness.records.config_diff import describe_changes, recordable, shaping_changes

log = logging.getLogger(__name__)

ALLOW_OVERRIDE = "+resume.allow_config_change=true"
ADOPT_OVERRIDE = "+resume.adopt_records=true"
CHANGES = "changes"
"""Under the manifest's config.resume: every allowed change, {setting, was, now}, oldest first."""
ADOPTED = "adopted"
"""Under the manifest's config.resume: records found without a manifest and adopted, {records, gate, at}."""
GATE_DIR = "gate"
_SHOWN_HASH = 12
"""Hex digits of a data hash shown in a refusal."""


def read_previous_manifest(run_dir: Path) -> Manifest | None:
    """The manifest of an earlier invocation, None for a new run; an unreadable one raises, naming the file."""
    try:
        return read_manifest(run_dir)
    except ValidationError as error:
        problem = error.errors()[0]["msg"]
    except (OSError, ValueError) as error:  # UnicodeDecodeError and UnreadableManifest are ValueErrors
        problem = str(error)
    raise RecordCorruptError(
        f"{Path(run_dir) / MANIFEST_FILE} is not a readable manifest ({problem}); restore it, or use a new "
        "hydra.run.dir: a run cannot be resumed without knowing the configuration it was started with."
    )


def resume_config(run_dir: Path, current: dict[str, Any], records: int) -> tuple[Manifest | None, dict[str, Any]]:
    """The earlier invocation's manifest (None for a new run) and the config this invocation records, given the
    number of trial records the run directory holds (read once, by the run's TrialLog).

    Refused, before anything is written: settings that would change finished trials (check_resumable), records
    without a manifest (adopt_unmanifested), fewer records than the manifest saw (check_records_kept).
    """
    previous = read_previous_manifest(run_dir)
    if previous is None:
        return None, adopt_unmanifested(run_dir, records, current)
    check_records_kept(run_dir, previous, records)
    return previous, check_resumable(previous.config, current)


def check_records_kept(run_dir: Path, previous: Manifest, records: int) -> None:
    """Records are only ever appended: fewer than an earlier invocation saw means some were removed, and resuming
    would play them again as if they had never been recorded."""
    seen = max(previous.resumed_from, previous.records or 0)
    if records < seen:
        raise RecordCorruptError(
            f"{Path(run_dir) / TRIALS_FILE} holds {records} trial record(s), but its {MANIFEST_FILE} saw {seen}, so "
            f"{seen - records} went missing; restore them from a backup, or use a new hydra.run.dir, nothing was "
            "changed."
        )


def adopt_unmanifested(run_dir: Path, records: int, current: dict[str, Any]) -> dict[str, Any]:
    """The config of a run directory without a manifest: unchanged when it holds nothing recorded.

    Records without a manifest were played under a configuration no one can tell any more, so resuming them is
    refused unless current has resume.adopt_records; the adoption is then recorded under resume.adopted.
    """
    gate = Path(run_dir) / GATE_DIR
    has_gate = gate.is_dir() and any(gate.iterdir())
    if not records and not has_gate:
        return current
    resume = current.get("resume") or {}
    held = f"{records} trial record(s)" + (" and a gate store" if has_gate else "")
    if not resume.get("adopt_records"):
        raise RecordsWithoutManifestError(
            f"{run_dir} holds {held} but no {MANIFEST_FILE}, so the configuration they were played under is "
            f"unknown; restore the manifest, use a new hydra.run.dir, or add {ADOPT_OVERRIDE} to resume them as "
            "if played under this configuration (the new manifest records the adoption)."
        )
    log.warning("adopting %s found in %s without a manifest, as resume.adopt_records allows", held, run_dir)
    adopted = {"records": records, "gate": has_gate, "at": datetime.now(timezone.utc).isoformat()}
    return {**current, "resume": {**resume, ADOPTED: adopted}}


def refuse_shaping_changes(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The settings that differ and would change finished trials; refused unless current has
    resume.allow_config_change."""
    changes = shaping_changes(previous, current)
    if changes and not (current.get("resume") or {}).get("allow_config_change"):
        raise ResumeMismatchError(
            f"this run directory was started with {describe_changes(changes)}; use a new hydra.run.dir, "
            f"the original settings, or {ALLOW_OVERRIDE} to resume it anyway."
        )
    return changes


def check_resumption(run_dir: Path, current: dict[str, Any]) -> None:
    """What resume_config refuses of a directory holding a manifest, checked without writing or logging.

    A sweep checks every job's directory so before its first job starts: a job refused for the run its directory
    already holds must not leave the jobs before it run and the sweep's multirun.yaml and report rewritten.
    """
    previous = read_previous_manifest(run_dir)
    if previous is None:
        return
    check_records_kept(run_dir, previous, len(read_trials(run_dir)))
    refuse_shaping_changes(previous.config, current)


def check_resumable(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """The config to record when `current` resumes a run started under `previous`.

    A change that could alter finished trials is refused unless current has resume.allow_config_change;
    an allowed one is appended to resume.changes, so the manifest keeps every earlier value, as it keeps an
    earlier adoption.
    """
    changes = refuse_shaping_changes(previous, current)
    resume = current.get("resume") or {}
    for key, (was, now) in changes.items():
        log.warning("resuming with %s=%r instead of %r, as resume.allow_config_change allows", key, now, was)
    earlier = previous.get("resume") or {}
    history = earlier.get(CHANGES, []) + [
        {"setting": key, "was": recordable(was), "now": recordable(now)} for key, (was, now) in changes.items()
    ]
    kept = {**({ADOPTED: earlier[ADOPTED]} if ADOPTED in earlier else {}), **({CHANGES: history} if history else {})}
    if not kept:
        return current
    return {**current, "resume": {**resume, **kept}}


def data_changes(previous: Manifest, hashes: dict[str, str]) -> dict[str, tuple[str, str]]:
    """The data a run's manifest hashed that hashes otherwise now: {"data_hashes.<name>": (was, now)}."""
    return {
        f"data_hashes.{name}": (was, hashes[name])
        for name, was in sorted(previous.data_hashes.items())
        if name in hashes and hashes[name] != was
    }


def check_data_unchanged(previous: Manifest | None, hashes: dict[str, str], resolved: dict[str, Any]) -> dict[str, Any]:
    """The config to record when a run resumes on data hashing `hashes` (the domain's games, problems, questions,
    prompts), given the config check_resumable resolved.

    Trials played on other games or prompts are not the same experiment, although every setting is: refused unless
    resolved has resume.allow_config_change, which appends each change to resume.changes as a setting's would be.
    """
    changes = data_changes(previous, hashes) if previous is not None else {}
    if not changes:
        return resolved
    resume = resolved.get("resume") or {}
    if not resume.get("allow_config_change"):
        shown = "; ".join(
            f"{key}={was[:_SHOWN_HASH]}..., not {now[:_SHOWN_HASH]}..." for key, (was, now) in changes.items()
        )
        raise ResumeMismatchError(
            f"this run directory's trials were played on other data than this harness reads now ({shown}; SHA-256 "
            f"as its {MANIFEST_FILE} records them); use a new hydra.run.dir, the data and prompts it was played on, "
            f"or {ALLOW_OVERRIDE} to resume it anyway."
        )
    for key, (was, now) in changes.items():
        log.warning("resuming with %s=%s instead of %s, as resume.allow_config_change allows", key, now, was)
    history = resume.get(CHANGES, []) + [
        {"setting": key, "was": was, "now": now} for key, (was, now) in changes.items()
    ]
    return {**resolved, "resume": {**resume, CHANGES: history}}
