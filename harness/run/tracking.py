"""A finished run logged to MLflow (`tracking=mlflow`): config as params, metrics, report files as artifacts.

mlflow is imported only here and only when tracking is on. Logging comes after the run's own files are written, so a
failure costs the copy, never the run: it is a warning, and the run still exits 0 (docs/tracking.md).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.metrics.effects import EFFECTS_FILE
from harness.metrics.run import METRICS_FILE, ConditionReport, RunMetrics
from harness.records import MANIFEST_FILE, TRIALS_FILE
from harness.run.config import RunConfig
from harness.run.provenance import git_commit
from harness.run.tracking_settings import TrackingSettings, is_file_store, store_path

log = logging.getLogger(__name__)

PARAM_VALUE_LIMIT = 500
"""MLflow's limit on a param value before 2.x, which older tracking servers still enforce (3.x stores 6000): a value
cut here loads anywhere. The whole config is manifest.json, logged as an artifact."""
CUT = "..."
PARAMS_PER_BATCH = 100
METRICS_PER_BATCH = 1000
ARTIFACT_FILES = ("report.md", "report.html", "summary.md", METRICS_FILE, EFFECTS_FILE, TRIALS_FILE, MANIFEST_FILE)
"""The run's files logged as artifacts, those that exist, with every plot (*.png) beside them."""
NOT_A_KEY_CHARACTER = re.compile(r"[^\w.\- /]")
"""MLflow's keys take letters, digits, `_ - . /` and spaces."""
ARTIFACT_DIR = "mlartifacts"
"""Beside a sqlite store: its experiments' artifacts (the directory `mlflow server` uses by default)."""
RUN_DIR_TAG = "harness.run_dir"
GIT_COMMIT_TAG = "mlflow.source.git.commit"


def _key(text: str) -> str:
    return NOT_A_KEY_CHARACTER.sub("_", text)


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= PARAM_VALUE_LIMIT else text[: PARAM_VALUE_LIMIT - len(CUT)] + CUT


def _named(items: list[Any]) -> dict[str, Any] | None:
    """Mappings with unique names (the conditions) keyed by name, so a param reads conditions.<name>.source."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    if not items or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        return None
    return dict(zip(names, items))  # type: ignore[arg-type]


def _leaves(tree: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    named = _named(tree) if isinstance(tree, list) else None
    if isinstance(tree, dict) or named is not None:
        for key, value in (named or tree).items():
            yield from _leaves(value, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, tree


def flat_params(config: Mapping[str, Any]) -> dict[str, str]:
    """The resolved config as MLflow params: dotted keys (conditions by name), values as text cut at
    PARAM_VALUE_LIMIT, and `strategy`, the conditions as chosen (`self_diagnosis,no_memory`)."""
    params = {_key(key): _value(value) for key, value in _leaves(dict(config), "")}
    names = [c.get("name") for c in config.get("conditions", []) if isinstance(c, dict)]
    return {"strategy": _value(",".join(str(n) for n in names)), **params}


def condition_metrics(report: ConditionReport) -> dict[str, float]:
    """One condition's figures from metrics.json, as `<condition>/<figure>`; undefined ones (an RRR without two
    reflections, a rate without reflections) are left out, not logged as 0."""
    totals = report.totals
    figures: dict[str, float | None] = {
        "tasks": totals.tasks,
        "solved": totals.solved,
        "solved_share": totals.solved_share,
        "rrr_defined": totals.rrr_defined,
        "mean_rrr": totals.mean_rrr,
        "frozen": totals.frozen,
        "frozen_share": totals.frozen_share,
        "reflections": totals.mentions.reflections,
        "mention_strict_rate": totals.mentions.strict_rate,
        "mention_normalized_rate": totals.mentions.normalized_rate,
        "malformed": totals.malformed,
    }
    return {f"{_key(report.condition)}/{name}": float(v) for name, v in figures.items() if v is not None}


def solved_by_trial(report: ConditionReport, trials: int) -> list[int]:
    """Tasks solved by the end of each trial (0-based), from each task's first won trial: one step per trial."""
    won = [task.solved_trial for task in report.tasks if task.solved_trial is not None]
    return [sum(first <= trial for first in won) for trial in range(trials)]


def experiment_name(config: RunConfig) -> str:
    return config.tracking.experiment_name or f"{config.env.name}/{config.experiment.name}"


def run_name(config: RunConfig, run_dir: Path) -> str:
    return config.tracking.run_name or Path(run_dir).resolve().name


def artifact_paths(run_dir: Path) -> list[Path]:
    named = [Path(run_dir) / name for name in ARTIFACT_FILES]
    return [path for path in named if path.is_file()] + sorted(Path(run_dir).glob("*.png"))


def track_run(config: RunConfig, resolved: Mapping[str, Any], run_dir: Path, metrics: RunMetrics) -> str | None:
    """Log a finished run as `config.tracking` asks; the MLflow run id, or None when tracking is off or failed (a
    warning: the run directory already holds everything)."""
    settings, reports = config.tracking, metrics.conditions
    if settings.backend == "none":
        return None
    try:
        run_id = _log_to_mlflow(
            settings,
            experiment_name(config),
            run_name(config, run_dir),
            flat_params(resolved),
            {key: value for report in reports for key, value in condition_metrics(report).items()},
            {f"{_key(r.condition)}/solved_by_trial": solved_by_trial(r, metrics.trial_budget) for r in reports},
            artifact_paths(run_dir),
            {RUN_DIR_TAG: str(Path(run_dir).resolve()), GIT_COMMIT_TAG: git_commit() or "unknown"},
        )
    except Exception as error:  # whatever fails, the copy fails alone: the run directory is as it was
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        log.warning(
            "tracking: the run is complete in %s, but logging it to MLflow at %s failed (%s); nothing of the run "
            "was lost",
            run_dir,
            settings.tracking_uri,
            reason,
        )
        return None
    log.info("tracking: logged to MLflow at %s as run %s", settings.tracking_uri, run_id)
    return run_id


def _experiment_id(client: Any, name: str, artifact_location: str | None) -> str:
    """The experiment's id, created when new; one another run created meanwhile (a sweep's jobs) is found."""
    found = client.get_experiment_by_name(name)
    if found is not None:
        return str(found.experiment_id)
    try:
        return str(client.create_experiment(name, artifact_location=artifact_location))
    except Exception:
        found = client.get_experiment_by_name(name)
        if found is None:
            raise
        return str(found.experiment_id)


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    return (items[start : start + size] for start in range(0, len(items), size))


def _log_to_mlflow(
    settings: TrackingSettings,
    experiment: str,
    name: str,
    params: Mapping[str, str],
    figures: Mapping[str, float],
    steps: Mapping[str, list[int]],
    artifacts: Sequence[Path],
    tags: Mapping[str, str],
) -> str:
    # Before mlflow loads: its usage telemetry would send data off the machine.
    os.environ["MLFLOW_DISABLE_TELEMETRY"] = "true"
    if is_file_store(settings.tracking_uri):  # chosen by name: MLflow 3 refuses its file store unless opted into
        os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    with warnings.catch_warnings():
        # mlflow's and SQLAlchemy's deprecation notices are theirs to fix, not the reader's.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        from mlflow import MlflowClient
        from mlflow.entities import Metric, Param

        for noisy in ("mlflow", "alembic"):  # after the import, which sets mlflow's own level: no INFO per table
            logging.getLogger(noisy).setLevel(logging.WARNING)

        path = store_path(settings.tracking_uri)
        (path if is_file_store(settings.tracking_uri) else path.parent).mkdir(parents=True, exist_ok=True)
        client = MlflowClient(tracking_uri=settings.tracking_uri)
        # A database store keeps artifacts where it is told, else in ./mlruns of whichever directory runs: beside it.
        artifacts_at = None if is_file_store(settings.tracking_uri) else (path.parent / ARTIFACT_DIR).resolve().as_uri()
        experiment_id = _experiment_id(client, experiment, artifacts_at)
        run_id: str = client.create_run(experiment_id, run_name=name, tags=dict(tags)).info.run_id
        try:
            now = int(time.time() * 1000)
            for chunk in _chunks([Param(k, v) for k, v in params.items()], PARAMS_PER_BATCH):
                client.log_batch(run_id, params=list(chunk))
            logged = [Metric(k, v, now, 0) for k, v in figures.items()]
            logged += [Metric(k, float(v), now, step) for k, values in steps.items() for step, v in enumerate(values)]
            for chunk in _chunks(logged, METRICS_PER_BATCH):
                client.log_batch(run_id, metrics=list(chunk))
            for artifact in artifacts:
                client.log_artifact(run_id, str(artifact))
        except BaseException:
            client.set_terminated(run_id, "FAILED")
            raise
        client.set_terminated(run_id, "FINISHED")
    return run_id
