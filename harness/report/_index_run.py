"""A run directory as a row of index.html: its manifest's status, domain, conditions and start, its records'
models and trial counts, and metrics.json's headline figures per condition (the figure catalogue's: solved, frozen
and task identity, ...).

Nothing here refuses: a file that cannot be read is named in the row, so one broken run never hides the others.
Reading never writes (`harness.records.read_trials`), so a run still recording is read as it stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from harness.domains.registry import domain_of_tasks
from harness.errors import HarnessError
from harness.metrics.figures import Measured, headlines
from harness.metrics.run import METRICS_FILE, ConditionReport, RunMetrics
from harness.records import (
    MANIFEST_FILE,
    TRIALS_FILE,
    Manifest,
    RunPlan,
    TrialRecord,
    manifest_plan,
    read_manifest,
    read_trials,
    split_by_plan,
)
from harness.report._runs import run_domain
from harness.report.html import IndexRow
from harness.records.trial_count import TrialCount

FINISHED = "finished"


def started_text(started: datetime) -> str:
    """UTC, to the minute: sorts as text in time order."""
    when = started.astimezone(timezone.utc) if started.tzinfo else started
    return when.strftime("%Y-%m-%d %H:%M")


def _first_line(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return error.errors()[0]["msg"]
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _manifest(run_dir: Path) -> tuple[Manifest | None, str]:
    """The manifest and the run's status; the status says why when there is no manifest to read."""
    try:
        manifest = read_manifest(run_dir)
    except (OSError, ValueError) as error:  # pydantic's ValidationError and UnreadableManifest are ValueErrors
        return None, f"unreadable {MANIFEST_FILE} ({_first_line(error)})"
    return manifest, manifest.status if manifest else f"no {MANIFEST_FILE}"


def _records(run_dir: Path) -> tuple[list[TrialRecord], str | None]:
    """trials.jsonl's complete records, or none and why."""
    if not (run_dir / TRIALS_FILE).exists():
        return [], None
    try:
        return read_trials(run_dir), None
    except (HarnessError, OSError) as error:
        return [], f"unreadable {TRIALS_FILE}: {_first_line(error)}"


def _models(held: Sequence[TrialRecord], manifest: Manifest | None) -> list[str]:
    """The models as the records name them; without records, the config's model names."""
    if held:
        return list(dict.fromkeys(name for r in held for name in (r.actor_model, r.reflector_model)))
    conditions = manifest.config.get("conditions", []) if manifest else []
    return list(
        dict.fromkeys(
            c[role]["name"]
            for c in conditions
            if isinstance(c, dict)
            for role in ("actor", "reflector")
            if isinstance(c.get(role), dict) and "name" in c[role]
        )
    )


def _counts(plan: RunPlan, held: Sequence[TrialRecord], status: str) -> tuple[int, int | None]:
    """Trials of the plan recorded, and at most how many it holds: every trial of a chain not yet won. A finished
    run holds what it recorded; without the manifest's task list the bound is unknown."""
    tasks = plan.tasks if plan.tasks is not None else list(dict.fromkeys(r.task_id for r in held))
    chains = [(c, task, repeat) for c in plan.conditions for task in tasks for repeat in range(plan.repeats)]
    count = TrialCount(chains, plan.trials, lambda record: record.success, held)
    if status == FINISHED:
        return count.done, count.done
    return count.done, count.planned if plan.tasks is not None else None


def condition_figures(report: ConditionReport) -> str:
    """One condition's headline figures as the index shows them: the catalogue's (harness.metrics.figures)."""
    return f"{report.condition}: " + "; ".join(headlines(Measured(report.totals, report.tasks)))


def _shown_count(count: int) -> str:
    """A count from a file, short: a hand-edited 10**30 is no figure to print whole."""
    return f"{count}" if count < 10**9 else "over 10^9"


def _unbacked(report: ConditionReport, held: Sequence[TrialRecord]) -> str | None:
    """Why one condition's counts in metrics.json are not the records' (so its figures are not shown), or None."""
    totals = report.totals
    records = [record for record in held if record.condition == report.condition]
    tasks, solved = {r.task_id for r in records}, {r.task_id for r in records if r.success}
    bounded = totals.solved <= totals.tasks and totals.frozen <= totals.rrr_defined <= totals.tasks
    if bounded and (totals.tasks, totals.solved) == (len(tasks), len(solved)):
        return None
    return (
        f"{report.condition}: figures not shown, {METRICS_FILE} says solved {_shown_count(totals.solved)} of "
        f"{_shown_count(totals.tasks)} tasks (frozen {_shown_count(totals.frozen)} of "
        f"{_shown_count(totals.rrr_defined)} with an RRR), {TRIALS_FILE} holds {len(solved)} solved of {len(tasks)}; "
        "`reflexion-report RUN_DIR` writes it anew"
    )


def metrics_figures(run_dir: Path, held: Sequence[TrialRecord], status: str) -> list[str]:
    """Each condition's headline figures from metrics.json (`condition_figures`), and a line when it is missing,
    unreadable or counts other trials than the records (a run resumed and not yet through). Figures the records
    cannot back are not shown, a line saying so in their place: none without records, and a condition's whose
    task and solved counts are not the records' (a hand-edited file)."""
    path = run_dir / METRICS_FILE
    if not path.is_file():
        return [f"no {METRICS_FILE}" + (" yet (written when the run ends)" if status == "running" else "")]
    try:
        metrics = RunMetrics.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as error:
        return [f"unreadable {METRICS_FILE} ({_first_line(error)})"]
    if not held:
        return [f"{METRICS_FILE} not shown: {TRIALS_FILE} holds no trial of the plan to check its figures against"]
    counted = sum(task.trials for c in metrics.conditions for task in c.tasks)
    if counted != len(held):  # a run resumed and not yet through: the figures of its last pass, said so
        lines = [condition_figures(c) for c in metrics.conditions]
        return [*lines, f"{METRICS_FILE} counts {counted} trials, {TRIALS_FILE} holds {len(held)} of the plan"]
    return [_unbacked(c, held) or condition_figures(c) for c in metrics.conditions]


def run_row(run_dir: Path, shown: str, report: str | None) -> IndexRow:
    """The run in `run_dir`, shown as `shown`, its page at `report` (relative to the index) or None."""
    manifest, status = _manifest(run_dir)
    records, unreadable = _records(run_dir)
    plan = manifest_plan(manifest, records)
    held, _ = split_by_plan(records, plan)
    tasks = plan.tasks if plan.tasks is not None else list(dict.fromkeys(r.task_id for r in held))
    domain = run_domain(manifest) or (domain_of_tasks(tasks) if tasks else None)
    done, planned = _counts(plan, held, status)
    figures = [unreadable] if unreadable else []
    return IndexRow(
        kind="run",
        path=shown,
        status=status,
        domains=[domain] if domain else [],
        conditions=plan.conditions,
        models=_models(held, manifest),
        started=started_text(manifest.started_at) if manifest else None,
        trials_done=done,
        trials_planned=planned,
        figures=[*figures, *metrics_figures(run_dir, held, status)],
        report=report,
        search=tasks,
    )
