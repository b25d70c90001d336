"""Held-out selection, one concept in one place: the tasks whose memory froze in an earlier run of the same domain
(`env.frozen_in`), and what a run on them shares with the run that selected them.

The selection run is read once per invocation (`read_selection`); its frozen tasks (`frozen_tasks`) go to the
domain's builder as its explicit `only` input (harness/run/preparation.py), and the reading goes to the run, which
records its state in the manifest and compares its answers with the run's. A control that replays its selection
run's answers is frozen by construction (regression to the mean built in), so the run names its selection run in the
manifest and counts the requests the two share. Records of schema 5 carry every call's cache key, and equal keys are
equal answers. Older records carry none: then a trial counts as shared when the selection run played the same task,
trial and repeat under the same run seed, and the same condition after trial 0 (trial 0 asks the same question in
every condition), an upper bound on what can be shared.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from harness.errors import GameNotFoundError, ResumeMismatchError
from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD
from harness.metrics.frozen import frozen_in_records
from harness.records import MANIFEST_FILE, TRIALS_FILE, Manifest, SelectionRun, TrialRecord, parse_trials, read_manifest
from harness.run.config import RunConfig
from harness.run.resume import ALLOW_OVERRIDE, CHANGES

log = logging.getLogger(__name__)

TrialIdentity = tuple[str, str, int, int, int]


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
    reading: SelectionReading | None = None,
) -> set[str]:
    """Task ids whose memory under `condition` froze in run directory `frozen_in`, a finished run of `domain`, at
    the thresholds given; `reading`: that run, already read (else it is read here).

    Refused in one sentence: not a run directory, no readable manifest or one that does not say finished (a run
    still playing, stopped or failed: its frozen set is not final), a run of another domain, no trial of the
    condition.
    """
    run_dir = Path(frozen_in)
    reading = reading if reading is not None and reading.run_dir == run_dir else read_selection(run_dir)
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


class SharedAnswers(BaseModel):
    """How much of this run the selection run already answered."""

    model_config = ConfigDict(frozen=True)

    basis: Literal["calls", "trials"]
    """calls: requests compared by cache key; trials: trials compared by task, trial, repeat and run seed."""
    compared: int
    shared: int


def _trial_identity(record: TrialRecord, run_seed: int) -> TrialIdentity:
    condition = "" if record.trial == 0 else record.condition
    return (record.task_id, condition, record.trial, record.repeat, run_seed)


def shared_answers(
    records: Sequence[TrialRecord], run_seed: int, selection: Sequence[TrialRecord], selection_seed: int | None
) -> SharedAnswers:
    """This run's requests (or trials, when either side has no calls recorded) that the selection run shares."""
    if all(r.calls for r in records) and all(r.calls for r in selection):
        seen = {call.key for r in selection for call in r.calls}
        keys = [call.key for r in records for call in r.calls]
        return SharedAnswers(basis="calls", compared=len(keys), shared=sum(key in seen for key in keys))
    played = set() if selection_seed is None else {_trial_identity(r, selection_seed) for r in selection}
    shared = sum(_trial_identity(r, run_seed) in played for r in records)
    return SharedAnswers(basis="trials", compared=len(records), shared=shared)


def frozen_in(config: RunConfig) -> Path | None:
    """The selection run this run's tasks come from, or None."""
    value = getattr(config.env, "frozen_in", None)
    return None if value is None else Path(value)


def held_out_tasks(config: RunConfig) -> tuple[SelectionReading | None, frozenset[str] | None]:
    """The selection run `env.frozen_in` names, read once, and the tasks frozen in it that the domain keeps (its
    builder's `only`); (None, None) without env.frozen_in."""
    selected_in = frozen_in(config)
    if selected_in is None:
        return None, None
    env = config.env
    reading = read_selection(selected_in)
    frozen = frozen_tasks(
        str(selected_in), env.frozen_condition, env.name, env.frozen_similarity_threshold, env.frozen_rrr_threshold,
        reading,
    )
    return reading, frozenset(frozen)


def selection_run(reading: SelectionReading) -> SelectionRun:
    """The selection run as the manifest names it, with the state of its records, before anything is compared."""
    manifest = reading.manifest
    return SelectionRun(
        path=str(reading.run_dir),
        started_at=manifest.started_at if manifest else None,
        git_commit=manifest.git_commit if manifest else None,
        records=reading.lines,
        trials_sha256=reading.trials_sha256,
    )


def _changed_tasks(was: Sequence[str], now: Sequence[str]) -> str:
    added, removed = [t for t in now if t not in was], [t for t in was if t not in now]
    parts = [f"{len(was)} task(s) then, {len(now)} now"]
    parts += [f"{label}: {', '.join(tasks)}" for label, tasks in (("added", added), ("dropped", removed)) if tasks]
    return "; ".join(parts)


def kept_selection(
    reading: SelectionReading | None, previous: Manifest | None, tasks: list[str], resolved: dict[str, Any]
) -> tuple[SelectionRun | None, dict[str, Any]]:
    """The selection run this run records, and the config to record, checked against the earlier invocation's.

    The frozen set is read from the selection run on every invocation (`reading`; None without env.frozen_in), so
    a resumption must select the tasks the
    run started on: other ones (the selection run resumed to more trials, or edited) are refused before anything is
    written unless resume.allow_config_change, which records the change under resume.changes as a setting's. The
    selection run's state as first selected on stays in the manifest; a change to it that selects the same tasks is
    named in a warning.
    """
    if reading is None:  # no env.frozen_in
        return None, resolved
    selected_in = reading.run_dir
    now = selection_run(reading)
    before = previous.selection if previous is not None else None
    if before is None or previous is None or previous.tasks is None:
        return now, resolved
    changed = before.records is not None and before.trials_sha256 != now.trials_sha256
    state = f"{before.records} record(s) then, {now.records} now" if changed else "its records unchanged"
    if previous.tasks != tasks:
        change = _changed_tasks(previous.tasks, tasks)
        resume = resolved.get("resume") or {}
        if not resume.get("allow_config_change"):
            raise ResumeMismatchError(
                f"env.frozen_in={selected_in} selects other tasks than this run started on ({change}; the "
                f"selection run has {state}); use a new hydra.run.dir, the selection run as it was, or "
                f"{ALLOW_OVERRIDE} to resume on the tasks it selects now."
            )
        log.warning(
            "resuming on the tasks env.frozen_in selects now (%s), as resume.allow_config_change allows", change
        )
        history = [*resume.get(CHANGES, []), {"setting": "tasks", "was": previous.tasks, "now": tasks}]
        return now, {**resolved, "resume": {**resume, CHANGES: history}}
    if changed:
        log.warning(
            "the selection run %s changed since this run started (%s), but selects the same %d task(s): the run "
            "resumes on them, and its manifest keeps the selection run as first selected on.",
            selected_in,
            state,
            len(tasks),
        )
    if before.path != now.path or before.records is None:  # moved with allow_config_change, or kept before states
        return now, resolved
    return before.model_copy(update={"basis": None, "compared": None, "shared": None}), resolved


def _run_seed(manifest: Manifest | None) -> int | None:
    experiment = (manifest.config.get("experiment") or {}) if manifest else {}
    seed = experiment.get("seed")
    return seed if isinstance(seed, int) else None


def compare_with_selection(
    selection: SelectionRun, records: Sequence[TrialRecord], run_seed: int, reading: SelectionReading
) -> SelectionRun:
    """The selection run (`reading`, as this invocation read it) with what this run shares with it; a warning
    (run.log and stderr) when anything is."""
    run_dir = Path(selection.path)
    found = shared_answers(records, run_seed, reading.records, _run_seed(reading.manifest))
    if found.shared:
        unit = "request(s)" if found.basis == "calls" else "trial(s) (no calls recorded: by task, trial and seed)"
        log.warning(
            "this run shares %d of its %d %s with its selection run %s, so its control is not a fresh sample of "
            "the frozen tasks: use another experiment.seed and a temperature above 0.",
            found.shared,
            found.compared,
            unit,
            run_dir,
        )
    return selection.model_copy(update=found.model_dump())


def warn_greedy_roles(config: RunConfig) -> None:
    """Warn when a role samples at temperature 0 on held-out tasks: a new seed then gives no new sample."""
    greedy = [role for role in ("actor", "reflector") if not getattr(config.sampling, role).temperature]
    if greedy:
        log.warning(
            "%s 0 or unset (the protocol's greedy requests) on tasks selected by env.frozen_in, so a new seed gives "
            "no new sample on llama.cpp; set it above 0 for a fresh control.",
            " and ".join(f"sampling.{role}.temperature" for role in greedy) + (" are" if len(greedy) > 1 else " is"),
        )
