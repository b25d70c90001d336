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

from pydantic import ValidationError

from harness.errors import ConfigError
from harness.metrics.effects import EFFECTS_FILE
from harness.metrics.figures import Measured, tracked_values
from harness.metrics.run import METRICS_FILE, ConditionReport, RunMetrics
from harness.records import MANIFEST_FILE, TRIALS_FILE, read_manifest
from harness.run.tracking_settings import TrackingSettings, is_file_store, store_path

log = logging.getLogger(__name__)

PARAM_VALUE_LIMIT = 500
"""MLflow's long-standing limit on a param value, which older stores and servers still enforce (3.x takes 6000): a
value cut here loads anywhere. The whole config is in manifest.json, logged as an artifact."""
CUT = "..."
PARAMS_PER_BATCH = 100
METRICS_PER_BATCH = 1000
ARTIFACT_FILES = ("report.md", "report.html", "summary.md", METRICS_FILE, EFFECTS_FILE, TRIALS_FILE, MANIFEST_FILE)
"""The run's files logged as artifacts, those that exist, with every plot (*.png) beside them."""
NOT_A_KEY_CHARACTER = re.compile(r"[^\w.\- /]")
"""MLflow's keys take letters, digits, `_ - . /` and spaces."""
ARTIFACT_DIR = "mlartifacts"
"""Beside a sqlite store: its experiments' artifacts (the directory `mlflow server` uses by default)."""
RELOG_COMMAND = "reflexion-track"
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
    return dict(zip(names, items))  # type: ignore[arg-type]  # every name is a str (checked above)


def _leaves(tree: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    """(dotted key, value) for every leaf; an empty mapping (a condition's `options: {}`) is a leaf, kept as `{}`."""
    named = _named(tree) if isinstance(tree, list) else None
    if (isinstance(tree, dict) and tree) or named is not None:
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
    """One condition's figures as `<condition>/<column>`: every number of its row in the condition tables (the
    figure catalogue's, harness.metrics.figures), with the identity figures under their MLflow names too; undefined
    ones (an RRR without two reflections, a rate without reflections) are left out, not logged as 0."""
    figures = tracked_values(Measured(report.totals, report.tasks))
    return {f"{_key(report.condition)}/{name}": value for name, value in figures.items()}


def solved_by_trial(report: ConditionReport, trials: int) -> list[int]:
    """Tasks solved by the end of each trial (0-based), from each task's first won trial: one step per trial."""
    won = [task.solved_trial for task in report.tasks if task.solved_trial is not None]
    return [sum(first <= trial for first in won) for trial in range(trials)]


def experiment_name(settings: TrackingSettings, config: Mapping[str, Any]) -> str:
    """tracking.experiment_name, else `<env.name>/<experiment.name>` of the resolved config."""
    env, experiment = config.get("env") or {}, config.get("experiment") or {}
    return settings.experiment_name or f"{env.get('name', 'unknown')}/{experiment.get('name', 'default')}"


def run_name(settings: TrackingSettings, run_dir: Path) -> str:
    return settings.run_name or Path(run_dir).resolve().name


def artifact_paths(run_dir: Path) -> list[Path]:
    named = [Path(run_dir) / name for name in ARTIFACT_FILES]
    return [path for path in named if path.is_file()] + sorted(Path(run_dir).glob("*.png"))


def log_run(settings: TrackingSettings, config: Mapping[str, Any], run_dir: Path, metrics: RunMetrics) -> str:
    """Log a run directory to the MLflow store `settings` names, as one new MLflow run; its id. `config` is the
    resolved config the manifest records."""
    manifest = read_manifest(run_dir)
    reports = metrics.conditions
    return _log_to_mlflow(
        settings,
        experiment_name(settings, config),
        run_name(settings, run_dir),
        flat_params(config),
        {key: value for report in reports for key, value in condition_metrics(report).items()},
        {f"{_key(r.condition)}/solved_by_trial": solved_by_trial(r, metrics.trial_budget) for r in reports},
        artifact_paths(run_dir),
        {
            RUN_DIR_TAG: str(Path(run_dir).resolve()),
            GIT_COMMIT_TAG: (manifest.git_commit if manifest else None) or "unknown",
        },
    )


def track_run(settings: TrackingSettings, config: Mapping[str, Any], run_dir: Path, metrics: RunMetrics) -> str | None:
    """At the end of a finished run: log it as `settings` ask; the MLflow run id, or None when tracking is off or
    failed (a warning: the run directory already holds everything)."""
    if settings.backend == "none":
        return None
    try:
        run_id = log_run(settings, config, run_dir, metrics)
    except Exception as error:  # whatever fails, the copy fails alone: the run directory is as it was
        log.warning(
            "tracking: the run is complete in %s, but logging it to MLflow at %s failed (%s); nothing of the run "
            "was lost, and `%s %s` logs it again",
            run_dir,
            settings.tracking_uri,
            reason_of(error),
            RELOG_COMMAND,
            run_dir,
        )
        return None
    log.info("tracking: logged to MLflow at %s as run %s", settings.tracking_uri, run_id)
    return run_id


def reason_of(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


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


def finished_run_reading(run_dir: Path) -> tuple[dict[str, Any], RunMetrics]:
    """The resolved config and metrics of a finished run directory, or ConfigError naming what is missing."""
    try:
        manifest = read_manifest(run_dir)
    except (OSError, ValueError) as error:  # pydantic's ValidationError is a ValueError
        raise ConfigError(f"{Path(run_dir) / MANIFEST_FILE} is not a readable manifest ({reason_of(error)}).") from None
    if manifest is None:
        raise ConfigError(f"{run_dir} holds no {MANIFEST_FILE}, so it is no run directory; give the one run.py wrote.")
    if manifest.status != "finished":
        raise ConfigError(
            f"{run_dir} is {manifest.status}, not finished: its {METRICS_FILE} may not cover its trials; finish it "
            "(run the same command again) and log it then."
        )
    try:
        metrics = RunMetrics.model_validate_json((Path(run_dir) / METRICS_FILE).read_text())
    except (OSError, ValueError) as error:
        raise ConfigError(f"{Path(run_dir) / METRICS_FILE} cannot be read ({reason_of(error)}).") from None
    return manifest.config, metrics


OPTIONS = {"tracking_uri": "--tracking-uri", "experiment_name": "--experiment-name", "run_name": "--run-name"}
"""The settings a later logging may change, by their option."""


def settings_with_options(config: Mapping[str, Any], given: Mapping[str, str | None]) -> TrackingSettings:
    """The run's tracking settings, turned on, with the options given; ConfigError naming a bad option."""
    chosen = {key: value for key, value in given.items() if value is not None}
    try:
        return TrackingSettings.model_validate({**(config.get("tracking") or {}), "backend": "mlflow", **chosen})
    except ValidationError as error:
        first = error.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        reason = first["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{OPTIONS.get(field, field)} {first.get('input')!r} is invalid: {reason}.") from None
