"""The `tracking` settings (configs/tracking/*.yaml): where a finished run is logged for experiment tracking.

Off by default. `tracking=mlflow` logs every finished run to one local MLflow store, shared by all runs so that
`mlflow ui` compares them; nothing is ever sent to a server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

SQLITE_PREFIX = "sqlite:///"
FILE_SCHEME = "file"
DEFAULT_TRACKING_URI = "sqlite:///results/mlflow.db"
"""MLflow's database store, the kind MLflow itself defaults to (its file store is in maintenance mode: MLflow 3.17
refuses it unless opted into), in results/ beside the runs and the LLM cache: one store for every run, relative to
the directory run.py is started from, as llm.cache.path is."""
OFFLINE_STORES = (
    f"a local store, {SQLITE_PREFIX}<file> (MLflow's database store, the default {DEFAULT_TRACKING_URI}) or "
    f"{FILE_SCHEME}:<directory> (its file store); the harness never logs to a server"
)


def store_path(tracking_uri: str) -> Path:
    """The sqlite file or file-store directory a local tracking URI names; ValueError for any other URI."""
    if tracking_uri.startswith(SQLITE_PREFIX):
        path = tracking_uri.removeprefix(SQLITE_PREFIX)
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
