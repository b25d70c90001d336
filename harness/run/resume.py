"""Resuming a run directory: its manifest read back and compared with the configuration that resumes it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.errors import RecordCorruptError, ResumeMismatchError
from harness.records import MANIFEST_FILE, Manifest, read_manifest

log = logging.getLogger(__name__)

# Settings that may change between a run and its resumption without changing any finished trial.
RESUMABLE_KEYS = ("experiment.trials", "experiment.max_concurrency", "llm", "progress", "resume")
ALLOW_OVERRIDE = "+resume.allow_config_change=true"
CHANGES = "changes"
"""Under the manifest's config.resume: every allowed change, {setting, was, now}, oldest first."""
# Model settings that pace, bound, retry or price calls but never change an answer (so a run stopped by a slow
# server resumes with a longer model.timeout_s); a run started before some of them existed lacks them.
MODEL_KEYS_NOT_SHAPING = (
    *("requests_per_minute", "tokens_per_minute", "price"),
    *("timeout_s", "max_retries", "retry_max_wait_s"),
)


def read_previous_manifest(run_dir: Path) -> Manifest | None:
    """The manifest of an earlier invocation, None for a new run; an unreadable one raises, naming the file."""
    try:
        return read_manifest(run_dir)
    except ValidationError as error:
        problem = error.errors()[0]["msg"]
    except (OSError, UnicodeDecodeError) as error:
        problem = str(error)
    raise RecordCorruptError(
        f"{Path(run_dir) / MANIFEST_FILE} is not a readable manifest ({problem}); restore it, or use a new "
        "hydra.run.dir: a run cannot be resumed without knowing the configuration it was started with."
    )


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, path + "."))
        else:
            flat[path] = value
    return flat


def _without_pacing_and_price(config: dict[str, Any]) -> dict[str, Any]:
    """The config with MODEL_KEYS_NOT_SHAPING dropped from the run's models and every condition's."""

    def roles(tree: dict[str, Any]) -> dict[str, Any]:
        return {
            key: {k: v for k, v in value.items() if k not in MODEL_KEYS_NOT_SHAPING}
            if key in ("actor", "reflector") and isinstance(value, dict)
            else value
            for key, value in tree.items()
        }

    conditions = [roles(c) if isinstance(c, dict) else c for c in config.get("conditions", [])]
    return {**roles(config), **({"conditions": conditions} if "conditions" in config else {})}


def config_changes(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Settings that shape finished trials and differ: {dotted key: (was, now)}, sorted by key."""
    old, new = _flatten(_without_pacing_and_price(previous)), _flatten(_without_pacing_and_price(current))
    changed = {}
    for key in sorted(set(old) | set(new)):
        if any(key == k or key.startswith(k + ".") for k in RESUMABLE_KEYS):
            continue
        if old.get(key) != new.get(key):
            changed[key] = (old.get(key), new.get(key))
    return changed


def check_resumable(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """The config to record when `current` resumes a run started under `previous`.

    A change that could alter finished trials is refused unless current has resume.allow_config_change;
    an allowed one is appended to resume.changes, so the manifest keeps every earlier value.
    """
    changes = config_changes(previous, current)
    resume = current.get("resume") or {}
    if changes and not resume.get("allow_config_change"):
        key, (was, now) = next(iter(changes.items()))
        raise ResumeMismatchError(
            f"this run directory was started with {key}={was!r}, not {now!r}; use a new hydra.run.dir, "
            f"the original setting, or {ALLOW_OVERRIDE} to resume it anyway."
        )
    for key, (was, now) in changes.items():
        log.warning("resuming with %s=%r instead of %r, as resume.allow_config_change allows", key, now, was)
    history = (previous.get("resume") or {}).get(CHANGES, [])
    history = history + [{"setting": key, "was": was, "now": now} for key, (was, now) in changes.items()]
    if not history:
        return current
    return {**current, "resume": {**resume, CHANGES: history}}
