"""A run directory read for reporting: its metrics (from metrics.json, or recomputed from trials.jsonl) and status.

Where trial records are there, the metrics are always measured from them (at the manifest's `metrics` thresholds),
and metrics.json is named as the source only when it says the same: a run resumed to more trials and stopped before
writing it again leaves one that does not, and so does a hand edit. Records outside the run's plan are named and
counted nowhere.

Reading never writes (`harness.records.read_trials`): a run may still be recording, so a torn last line
is left alone and skipped, where `harness.records.TrialLog` would cut it off the file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.domains.registry import domain_of_tasks, identity_rule, mention_rules
from harness.errors import HarnessError
from harness.metrics.core import TaskMetrics
from harness.metrics.diagnosis.summary import with_diagnosis
from harness.metrics.effects import DEFAULT_PRIMARY, MEASURES
from harness.metrics.cost import ConditionPrices, UsageTotals, condition_prices, run_usage, with_unpriced
from harness.metrics.run import METRICS_FILE, RunMetrics, run_metrics
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds
from harness.records.diagnosis_log import read_diagnosis
from harness.records import (
    MANIFEST_FILE,
    TRIALS_FILE,
    Manifest,
    OutsidePlan,
    RunPlan,
    TrialRecord,
    manifest_plan,
    read_manifest,
    read_trials,
    split_by_plan,
)


class ReportInputError(HarnessError):
    """A run directory cannot be reported on as given."""


class RunData(BaseModel):
    """One run directory's metrics and where they came from."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="The folder name, or as much of its path as tells the report's runs apart.")
    path: Path = Field(description="The run directory.")
    metrics: RunMetrics
    metrics_source: str = Field(description="'metrics.json', or how many records the metrics were recomputed from.")
    domain: str | None = Field(
        description="The run's domain: the manifest's env.name, else the one its task ids belong to; None if unknown."
    )
    status: str | None = Field(description="The manifest's status (running, finished, failed); None without one.")
    prices: dict[str, ConditionPrices] = Field(
        description="Each condition's role prices, from the manifest's config; unpriced where it names no models."
    )
    usage: dict[str, UsageTotals] = Field(description="Each condition's LLM use from trials.jsonl; empty without it.")
    records: list[TrialRecord] = Field(
        default_factory=list, description="The records of trials.jsonl the run's plan holds (the page shows them)."
    )
    outside_plan: list[OutsidePlan] = Field(
        default_factory=list, description="Records the run's plan does not hold: named, not counted."
    )
    primary_measure: str = Field(
        DEFAULT_PRIMARY, description="The design's primary effect measure (the manifest's metrics.primary_measure)."
    )
    selection: str | None = Field(
        None, description="The run its tasks were selected from (env.frozen_in, the manifest's selection); else None."
    )


def run_primary(manifest: Manifest | None) -> str:
    """The primary effect measure a run's manifest declares; the default for a run recorded before there was one."""
    settings = manifest.config.get("metrics") if manifest else None
    primary = settings.get("primary_measure") if isinstance(settings, dict) else None
    return primary if isinstance(primary, str) and primary in MEASURES else DEFAULT_PRIMARY


def run_selection(manifest: Manifest | None) -> str | None:
    """The run a run's tasks were selected from (env.frozen_in), as its manifest names it."""
    return manifest.selection.path if manifest and manifest.selection else None


def _read_manifest(run_dir: Path) -> Manifest | None:
    path = run_dir / MANIFEST_FILE
    try:
        return read_manifest(run_dir)
    except (OSError, ValueError) as error:  # pydantic's ValidationError and UnreadableManifest are ValueErrors
        problem = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise ReportInputError(
            f"{path} is not a readable manifest ({problem.rstrip('.')}); restore it, or move it away to report "
            "from the records alone."
        ) from None


def run_domain(manifest: Manifest | None) -> str | None:
    """The domain a run played, from its manifest."""
    env = manifest.config.get("env") if manifest else None
    return env.get("name") if isinstance(env, dict) else None


def run_thresholds(manifest: Manifest | None) -> Thresholds:
    """The run's `metrics` settings as its manifest records them; the study's 0.85 and 0.5 without them."""
    settings = manifest.config.get("metrics") if manifest else None
    if not isinstance(settings, dict):
        return DEFAULT_THRESHOLDS
    try:
        return Thresholds(**{k: v for k, v in settings.items() if k in Thresholds.model_fields and v is not None})
    except ValidationError as error:
        raise ReportInputError(
            f"the manifest's metrics settings {settings} are not thresholds this harness reads "
            f"({error.errors()[0]['msg']}); restore the manifest."
        ) from None


def recompute_metrics(
    run_dir: Path,
    records: Sequence[TrialRecord],
    plan: RunPlan,
    domain: str | None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> RunMetrics:
    """The metrics a finished run would have written, measured by the run's own domain's target and mention
    rules at its thresholds; records outside the plan are named, not counted."""
    held, _ = split_by_plan(records, plan)
    if not held:
        raise ReportInputError(
            f"{run_dir} holds no complete trial record its plan holds, and no usable {METRICS_FILE}; nothing to report."
        )
    if domain is None:
        raise ReportInputError(
            f"{run_dir} holds no {METRICS_FILE}, no {MANIFEST_FILE} naming its domain, and task ids no domain "
            "accepts; give a run directory with its manifest."
        )
    try:
        target, mentions = mention_rules(domain)
        targets = {r.task_id: target(r.task_id) for r in held}
    except ValueError as error:
        raise ReportInputError(f"{run_dir}: {error}") from error
    measured = run_metrics(records, plan, targets, mentions, identity_rule(domain), thresholds)
    return with_diagnosis(measured, read_diagnosis(run_dir))


def _read_metrics(path: Path) -> RunMetrics:
    try:
        return RunMetrics.model_validate_json(path.read_text())
    except ValidationError as error:
        raise ReportInputError(
            f"{path} is not a metrics file of this harness ({error.error_count()} errors); delete it to recompute "
            "the metrics from the records."
        ) from error


def _coverage(metrics: RunMetrics) -> dict[tuple[str, str], tuple[int, int]]:
    """(condition, task) -> (trials, reflections), as metrics.json counted them."""
    return {(c.condition, t.task_id): (t.trials, t.reflections) for c in metrics.conditions for t in c.tasks}


def _records_coverage(records: Sequence[TrialRecord]) -> dict[tuple[str, str], tuple[int, int]]:
    trials = Counter((r.condition, r.task_id) for r in records)
    reflections = Counter((r.condition, r.task_id) for r in records if r.reflection is not None)
    return {key: (count, reflections[key]) for key, count in trials.items()}


def _stale(metrics: RunMetrics, held: Sequence[TrialRecord], plan: RunPlan, measured: RunMetrics) -> str | None:
    """Why metrics.json does not describe the records the plan holds (a run resumed and stopped before writing
    it again, or a hand edit), or None when it says what the records measure."""
    if metrics.trial_budget != plan.trials:
        return f"{METRICS_FILE} was written for {metrics.trial_budget} trial(s), the run now plans {plan.trials}"
    if _coverage(metrics) != _records_coverage(held):
        covered = sum(trials for trials, _ in _coverage(metrics).values())
        return f"{METRICS_FILE} covers {covered} record(s) and disagrees with trials.jsonl's {len(held)}"
    if metrics != _as_written(measured, metrics):
        return f"{METRICS_FILE} disagrees with what its records measure"
    return None


def _as_written(measured: RunMetrics, written: RunMetrics) -> RunMetrics:
    """`measured` as a metrics.json written before some figures existed holds it: without the run-on counts of
    conditions it lacks, without the per-chain figures its tasks lack (harness.metrics.figures) and without the
    diagnosis rows of conditions it lacks (a diagnosis.jsonl written later by `reflexion-diagnosis RUN_DIR`). Lacking
    them does not make it disagree; the report shows them measured from the records either way."""
    lacking = {c.condition for c in written.conditions if c.run_on is None}
    undiagnosed = {c.condition for c in written.conditions if c.totals.diagnosis is None}
    held = {(c.condition, t.task_id): t.figures.keys() for c in written.conditions for t in c.tasks}

    def task(condition: str, measured_task: TaskMetrics) -> TaskMetrics:
        names = held.get((condition, measured_task.task_id), measured_task.figures.keys())
        figures = {name: value for name, value in measured_task.figures.items() if name in names}
        return measured_task.model_copy(update={"figures": figures})

    conditions = [
        c.model_copy(
            update={
                "run_on": None if c.condition in lacking else c.run_on,
                "tasks": [task(c.condition, t) for t in c.tasks],
                "totals": c.totals.model_copy(update={"diagnosis": None}) if c.condition in undiagnosed else c.totals,
            }
        )
        for c in measured.conditions
    ]
    return measured.model_copy(update={"conditions": conditions})


def load_run(run_dir: Path, name: str) -> RunData:
    """Metrics measured from the run's records (metrics.json named as their source when it says the same), or read
    from metrics.json alone without records; LLM use from the records, priced by the manifest. Records outside the
    run's plan are named, not counted."""
    manifest = _read_manifest(run_dir)
    records = read_trials(run_dir)
    has_records = (run_dir / TRIALS_FILE).is_file()
    written = _read_metrics(run_dir / METRICS_FILE) if (run_dir / METRICS_FILE).is_file() else None
    if written is None and not has_records:
        raise ReportInputError(f"{run_dir} is not a run directory: it holds neither {METRICS_FILE} nor {TRIALS_FILE}.")
    plan = manifest_plan(manifest, records, written.trial_budget if written else None)
    held, outside = split_by_plan(records, plan)
    if written is not None and not has_records:
        metrics, source = written, METRICS_FILE
        domain = run_domain(manifest) or domain_of_tasks([t.task_id for c in metrics.conditions for t in c.tasks])
        outside = list(written.outside_plan)
    else:
        domain = run_domain(manifest) or domain_of_tasks([r.task_id for r in held])
        metrics = recompute_metrics(run_dir, records, plan, domain, run_thresholds(manifest))
        stale = _stale(written, held, plan, metrics) if written is not None else f"no {METRICS_FILE}"
        source = METRICS_FILE if stale is None else f"recomputed from {len(held)} records ({stale})"
    prices = with_unpriced(held, condition_prices(manifest.config) if manifest else {})
    return RunData(
        name=name,
        path=run_dir,
        metrics=metrics,
        metrics_source=source,
        domain=domain,
        status=manifest.status if manifest else None,
        prices=prices,
        usage=run_usage(held, prices) if has_records else {},
        records=held,
        outside_plan=outside,
        primary_measure=run_primary(manifest),
        selection=run_selection(manifest),
    )


def finished_run(
    run_dir: Path, manifest: Manifest, records: Sequence[TrialRecord], plan: RunPlan, metrics: RunMetrics
) -> RunData:
    """A run the harness has just written, as it holds it in memory (the metrics it wrote into metrics.json, the
    manifest and records it wrote): the report at a run's end reads nothing back from disk."""
    held, outside = split_by_plan(list(records), plan)
    prices = with_unpriced(held, condition_prices(manifest.config))
    return RunData(
        name=run_names([run_dir])[0],
        path=run_dir,
        metrics=metrics,
        metrics_source=METRICS_FILE,
        domain=run_domain(manifest) or domain_of_tasks([r.task_id for r in held]),
        status=manifest.status,
        prices=prices,
        usage=run_usage(held, prices),
        records=held,
        outside_plan=outside,
        primary_measure=run_primary(manifest),
        selection=run_selection(manifest),
    )


def run_names(run_dirs: Sequence[Path]) -> list[str]:
    """Each directory's name, with as many parent folders as it takes to tell them apart."""
    resolved = [Path(d).resolve() for d in run_dirs]
    if len(set(resolved)) != len(resolved):
        raise ReportInputError("a run directory is given twice; give each once.")
    depth = 1
    # Unique full paths guarantee an end: at worst every name is its whole path.
    while len(set(names := [Path(*p.parts[-depth:]).as_posix() for p in resolved])) < len(resolved):
        depth += 1
    return names


def load_runs(run_dirs: Sequence[Path]) -> list[RunData]:
    """Every run directory, in the order given."""
    if not run_dirs:
        raise ReportInputError("no run directory given.")
    return [load_run(Path(d), name) for d, name in zip(run_dirs, run_names(run_dirs))]
