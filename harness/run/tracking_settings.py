"""The `tracking` settings (configs/tracking/*.yaml): where a finished run is logged for experiment tracking.

Off by default. `tracking=mlflow` logs every finished run to one local MLflow store, shared by all runs so that
`mlflow ui` compares them; nothing is ever sent to a server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.errors import ConfigError

SQLITE_PREFIX = "sqlite:///"
FILE_SCHEME = "file"
SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""
DEFAULT_TRACKING_URI = "sqlite:///results/mlflow.db"
"""MLflow's database store, the kind MLflow itself defaults to (its file store is in maintenance mode: MLflow 3.17
refuses it unless opted into), in results/ beside the runs and the LLM cache: one store for every run, relative to
the directory run.py is started from, as llm.cache.path is."""
OFFLINE_STORES = (
    f"a local store, {SQLITE_PREFIX}<file> (MLflow's database store, the default {DEFAULT_TRACKING_URI}) or "
    f"{FILE_SCHEME}:<directory> (its file store); the harness never logs to a server"
)


def _in_memory(path: str) -> bool:
    """SQLite's in-memory databases: `:memory:`, and a `file:` URI filename named so or opened with mode=memory."""
    name, _, query = path.partition("?")
    return name in (":memory:", "file::memory:") or "mode=memory" in query.split("&")


def store_path(tracking_uri: str) -> Path:
    """The sqlite file or file-store directory a local tracking URI names; ValueError for any other URI, and for
    an in-memory database, which keeps nothing once the run ends."""
    if tracking_uri.startswith(SQLITE_PREFIX) or tracking_uri == "sqlite://":  # SQLAlchemy's sqlite:// is in memory
        path = tracking_uri.removeprefix(SQLITE_PREFIX) if tracking_uri != "sqlite://" else ":memory:"
        if _in_memory(path):
            raise ValueError(
                f"it names an in-memory database, which keeps nothing once the run ends; name a file, e.g. "
                f"{DEFAULT_TRACKING_URI}"
            )
    else:
        parsed = urlparse(tracking_uri)
        if parsed.scheme != FILE_SCHEME or parsed.netloc not in ("", "localhost") or parsed.query:
            raise ValueError(f"it must name {OFFLINE_STORES}")
        path = unquote(parsed.path)
    if not path or path.endswith("/"):
        raise ValueError(f"it names no file or directory; it must name {OFFLINE_STORES}")
    return Path(path)


def is_file_store(tracking_uri: str) -> bool:
    """True for a `file:` URI (MLflow's file store), False for sqlite."""
    return not tracking_uri.startswith(SQLITE_PREFIX)


def check_sqlite_file(tracking_uri: str) -> None:
    """ConfigError unless the sqlite store's file, where it exists and holds anything, is an SQLite database:
    MLflow would find out only when it logs the run, after every trial."""
    path = store_path(tracking_uri)
    if not path.is_file() or path.stat().st_size == 0:  # an empty file is one SQLite makes a database of
        return
    try:
        with path.open("rb") as store:
            header = store.read(len(SQLITE_HEADER))
    except OSError:
        raise ConfigError(
            f"tracking.tracking_uri={tracking_uri} names a file that cannot be read by this user; name another "
            "store, or leave tracking off (tracking=none)."
        ) from None
    if header != SQLITE_HEADER:
        raise ConfigError(
            f"tracking.tracking_uri={tracking_uri} names a file that is not an SQLite database, so MLflow could not "
            f"log the run into it; name a new file or an MLflow database, e.g. {DEFAULT_TRACKING_URI}."
        )


class TrackingSettings(BaseModel):
    """Experiment tracking of finished runs (`tracking=mlflow`); `backend: none` logs nothing and imports nothing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Literal["none", "mlflow"] = Field("none", description="none: off; mlflow: log each finished run.")
    tracking_uri: str = Field(
        DEFAULT_TRACKING_URI,
        description="The local MLflow store: sqlite:///<file> or file:<directory>, relative to the working directory.",
    )
    experiment_name: str | None = Field(
        None, min_length=1, description="The MLflow experiment; None = '<env.name>/<experiment.name>'."
    )
    run_name: str | None = Field(None, min_length=1, description="The MLflow run's name; None = the run directory's.")

    @field_validator("tracking_uri")
    @classmethod
    def _offline(cls, uri: str) -> str:
        store_path(uri)
        return uri
