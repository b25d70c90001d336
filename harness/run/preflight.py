"""Before a run writes anything: is its input valid, can its models answer? The config validates, its tasks exist,
the cache file can be read (and written when it is), keys are set, servers respond.

Each of these would otherwise surface only at the first model call, after the run directory was written.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from harness.run.config import RunConfig
from harness.errors import ConfigError
from harness.llm import ModelConfig, api_key, base_url, check_reachable, linked_lock, lock_path
from harness.records import MANIFEST_FILE, TRIALS_FILE
from harness.reflection import get_source
from harness.records.run_dir import run_holding
from harness.run.tracking_settings import (
    DEFAULT_TRACKING_URI,
    TrackingSettings,
    check_sqlite_file,
    is_file_store,
    store_path,
)

TRACKING_INSTALL = "pip install -e .[tracking]"


def models_in_use(config: RunConfig) -> list[ModelConfig]:
    """The distinct models the run's conditions call: every actor, and the reflector of those that reflect."""
    used: list[ModelConfig] = []
    for condition in config.conditions:
        roles = [condition.actor]
        if get_source(condition.source).uses_memory:
            roles.append(condition.reflector)
        used += [model for model in roles if model not in used]
    return used


def check_models(config: RunConfig) -> None:
    """Raise one clear error if a model of the run cannot answer; replay is checked against its cache only."""
    cache = config.llm.cache
    check_cache_path(cache.path, cache.mode)
    if cache.mode == "replay" and not Path(cache.path).is_file():
        raise ConfigError(
            f"llm.cache.path={cache.path} does not exist, and llm.cache.mode=replay answers only from that file; "
            "point llm.cache.path at a recorded cache, or record one with llm.cache.mode=auto or record."
        )
    probed: set[tuple[str, str]] = set()
    for model in models_in_use(config):
        if model.backend != "openai":
            continue
        key = api_key(model)  # the backend needs it even to replay
        # One probe per server and key: the roles of one model differ in settings, not in where they are served.
        if cache.mode != "replay" and (base_url(model), key) not in probed:  # replay never calls the model
            check_reachable(model, key)
            probed.add((base_url(model), key))


def check_cache_path(value: str, mode: str) -> None:
    """Raise ConfigError unless `value` can be the cache file under `mode`: not a directory, a regular file where it
    is read (a device reads as empty), and writable where it is written."""
    path = Path(value)
    if path.is_dir():
        raise ConfigError(
            f"llm.cache.path={value} is a directory; name a JSONL file, e.g. llm.cache.path={path / 'llm_cache.jsonl'}."
        )
    if path.name in (TRIALS_FILE, MANIFEST_FILE):
        # A run's own file: read as a cache it is "corrupt", written as one it would take cache lines among records.
        raise ConfigError(
            f"llm.cache.path={value} names a run's {path.name}, not a cache; name the cache file, e.g. "
            f"llm.cache.path={path.with_name('llm_cache.jsonl')}."
        )
    if mode != "off" and path.exists() and not path.is_file():
        raise ConfigError(
            f"llm.cache.path={value} is not a regular file (a device, pipe or socket), and llm.cache.mode={mode} "
            "reads it back as JSONL; name a file, e.g. the default llm.cache.path=results/llm_cache.jsonl."
        )
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing != path and not existing.is_dir():
        raise ConfigError(f"llm.cache.path={value} is inside {existing}, which is a file; name a file in a directory.")
    if mode in ("auto", "record"):
        _check_cache_writable(value, existing)


def _check_cache_writable(value: str, existing: Path) -> None:
    """The cache file (or the folder it will be made in) writable, and the folder of its lock file too: a miss
    creates and locks `<cache>.lock` there, never through a symbolic link."""
    folder = lock_path(Path(value)).parent if Path(value).exists() else existing
    if not os.access(existing, os.W_OK) or not os.access(folder, os.W_OK):
        unwritable = existing if not os.access(existing, os.W_OK) else folder
        raise ConfigError(
            f"llm.cache.path={value} cannot be written: {unwritable} is read-only or not writable by this user, and "
            f"llm.cache.mode=auto or record writes the cache and its lock file {lock_path(Path(value)).name} beside "
            "it; choose another path, or replay with llm.cache.mode=replay."
        )
    if reason := linked_lock(Path(value)):
        raise ConfigError(f"llm.cache.path={value} cannot be used: {reason}; remove it, and the run makes its own.")


def check_tracking(settings: TrackingSettings) -> None:
    """Raise ConfigError unless a run can be logged as `tracking` asks, found now rather than after its trials:
    mlflow installed (with the database modules a sqlite store needs) and the store's path usable."""
    if settings.backend == "none":
        return
    if importlib.util.find_spec("mlflow") is None:
        raise ConfigError(
            f"tracking=mlflow logs each finished run to MLflow, but mlflow is not installed; run {TRACKING_INSTALL}, "
            "or leave tracking off (tracking=none)."
        )
    uri = settings.tracking_uri
    missing = [name for name in ("sqlalchemy", "alembic") if importlib.util.find_spec(name) is None]
    if not is_file_store(uri) and missing:
        raise ConfigError(
            f"tracking.tracking_uri={uri} is MLflow's database store, which needs {' and '.join(missing)} (the full "
            f"mlflow package has them, mlflow-skinny not); run {TRACKING_INSTALL}, or use a file:<directory> store."
        )
    path = store_path(uri)
    if is_file_store(uri) and path.exists() and not path.is_dir():
        raise ConfigError(f"tracking.tracking_uri={uri} names a file, and a file: store is a directory; name one.")
    if not is_file_store(uri) and path.is_dir():
        raise ConfigError(
            f"tracking.tracking_uri={uri} names a directory, and a sqlite store is a file; name one, e.g. "
            f"{uri.rstrip('/')}/mlflow.db."
        )
    if not is_file_store(uri):
        check_sqlite_file(uri)
    check_store_outside_runs(settings)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    inside_a_file = existing != path and not existing.is_dir()
    if inside_a_file or not os.access(existing, os.W_OK):
        raise ConfigError(
            f"tracking.tracking_uri={uri} cannot be written (in a file, read-only, or not this user's); name another "
            "store, or leave tracking off (tracking=none)."
        )


def check_store_outside_runs(settings: TrackingSettings, run_dir: Path | None = None) -> None:
    """ConfigError when the tracking store would write into a run's directory: one that holds a run, or `run_dir`,
    the run's own (perhaps not made yet). A store is shared by runs (`mlflow ui` compares them), and MLflow would
    put its folders or database among a run's files, to be copied, moved or deleted with it."""
    if settings.backend == "none":
        return
    uri = settings.tracking_uri
    path = store_path(uri)
    store = Path(os.path.realpath(path if is_file_store(uri) else path.parent))
    found = run_holding(store)
    if found is None and run_dir is not None:
        own = Path(os.path.realpath(run_dir))
        found = (own, "this run") if store == own or own in store.parents else None
    if found is not None:
        directory, held = found
        what = "is this run's own directory" if held == "this run" else f"holds {held}"
        raise ConfigError(
            f"tracking.tracking_uri={uri} would write MLflow's store into the run directory {directory} (it {what}); "
            f"name a store outside every run directory, e.g. the default {DEFAULT_TRACKING_URI}."
        )
