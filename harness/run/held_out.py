"""Held-out selection: what a run on frozen tasks (`env.frozen_in`) shares with the run that selected them.

A control that replays its selection run's answers is frozen by construction (regression to the mean built in), so
the run names its selection run in the manifest and counts the requests the two share. Records of schema 5 carry
every call's cache key, and equal keys are equal answers. Older records carry none: then a trial counts as shared
when the selection run played the same task, trial and repeat under the same run seed, and the same condition
after trial 0 (trial 0 asks the same question in every condition), an upper bound on what can be shared.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from harness.domains.frozen_in import SelectionReading
from harness.errors import ResumeMismatchError
from harness.records import Manifest, SelectionRun, TrialRecord
from harness.run.config import RunConfig
from harness.run.resume import ALLOW_OVERRIDE, CHANGES

log = logging.getLogger(__name__)

TrialIdentity = tuple[str, str, int, int, int]


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
