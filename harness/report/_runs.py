"""A run directory read for reporting: its metrics (from metrics.json, or recomputed from trials.jsonl) and status.

Reading never writes (`harness.records.read_trials`): a run may still be recording, so a torn last line
is left alone and skipped, where `harness.records.TrialLog` would cut it off the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.domains.registry import domain_of_tasks, mention_rules
from harness.errors import HarnessError
from harness.metrics.cost import ConditionPrices, UsageTotals, condition_prices, run_usage, with_unpriced
from harness.metrics.run import METRICS_FILE, RunMetrics, run_metrics
from harness.records import MANIFEST_FILE, TRIALS_FILE, Manifest, TrialRecord, read_trials


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


def _read_manifest(run_dir: Path) -> Manifest | None:
    path = run_dir / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        return Manifest.model_validate_json(path.read_text())
    except (ValueError, UnicodeDecodeError) as error:  # pydantic's ValidationError is a ValueError
        problem = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise ReportInputError(
            f"{path} is not a readable manifest ({problem.rstrip('.')}); restore it, or move it away to report "
            "from the records alone."
        ) from None


def _conditions(records: Sequence[TrialRecord], manifest: Manifest | None) -> list[str]:
    """The run's condition order: the configuration's, else the order of first appearance in the records."""
    configured = [c["name"] for c in manifest.config.get("conditions", [])] if manifest else []
    seen = list(dict.fromkeys(r.condition for r in records))
    return [c for c in configured if c in seen] + [c for c in seen if c not in configured]


def _trial_budget(records: Sequence[TrialRecord], manifest: Manifest | None) -> int:
    if manifest and "trials" in manifest.config.get("experiment", {}):
        return int(manifest.config["experiment"]["trials"])
    return max(r.trial for r in records) + 1


def run_domain(manifest: Manifest | None) -> str | None:
    """The domain a run played, from its manifest."""
    env = manifest.config.get("env") if manifest else None
    return env.get("name") if isinstance(env, dict) else None


def recompute_metrics(
    run_dir: Path, records: Sequence[TrialRecord], manifest: Manifest | None, domain: str | None
) -> RunMetrics:
    """The metrics a finished run would have written, measured by the run's own domain's target and mention
    rules."""
    if not records:
        raise ReportInputError(f"{run_dir} holds no complete trial record and no {METRICS_FILE}; nothing to report.")
    if domain is None:
        raise ReportInputError(
            f"{run_dir} holds no {METRICS_FILE}, no {MANIFEST_FILE} naming its domain, and task ids no domain "
            "accepts; give a run directory with its manifest."
        )
    try:
        target, mentions = mention_rules(domain)
        targets = {r.task_id: target(r.task_id) for r in records}
    except ValueError as error:
        raise ReportInputError(f"{run_dir}: {error}") from error
    return run_metrics(records, _conditions(records, manifest), targets, _trial_budget(records, manifest), mentions)


def _read_metrics(path: Path) -> RunMetrics:
    try:
        return RunMetrics.model_validate_json(path.read_text())
    except ValidationError as error:
        raise ReportInputError(
            f"{path} is not a metrics file of this harness ({error.error_count()} errors); delete it to recompute "
            "the metrics from the records."
        ) from error


def load_run(run_dir: Path, name: str) -> RunData:
    """Metrics from metrics.json when the run wrote one, else recomputed from its records; LLM use from the
    records, priced by the manifest."""
    manifest = _read_manifest(run_dir)
    records = read_trials(run_dir)
    metrics: RunMetrics | None = None
    if (run_dir / METRICS_FILE).is_file():
        metrics, source = _read_metrics(run_dir / METRICS_FILE), METRICS_FILE
        task_ids = [t.task_id for c in metrics.conditions for t in c.tasks]
    elif (run_dir / TRIALS_FILE).is_file():
        source = f"recomputed from {len(records)} records (no {METRICS_FILE})"
        task_ids = [r.task_id for r in records]
    else:
        raise ReportInputError(f"{run_dir} is not a run directory: it holds neither {METRICS_FILE} nor {TRIALS_FILE}.")
    domain = run_domain(manifest) or domain_of_tasks(task_ids)
    if metrics is None:
        metrics = recompute_metrics(run_dir, records, manifest, domain)
    prices = with_unpriced(records, condition_prices(manifest.config) if manifest else {})
    return RunData(
        name=name,
        path=run_dir,
        metrics=metrics,
        metrics_source=source,
        domain=domain,
        status=manifest.status if manifest else None,
        prices=prices,
        usage=run_usage(records, prices) if (run_dir / TRIALS_FILE).is_file() else {},
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
