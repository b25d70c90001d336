"""SweepJob: one job of a sweep as planned; the guard plans it (harness/cli) and the sweep's report reads it
(harness/report), and here planning on run.py's start-up path does not import the report's statistics and plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class SweepJob(BaseModel):
    """One job of the sweep, as planned before it ran."""

    model_config = ConfigDict(frozen=True)

    num: int = Field(description="Hydra's job number (hydra.job.num).")
    overrides: list[str] = Field(description="The job's values of the swept keys.")
    directory: Path = Field(description="Its run directory: hydra.sweep.dir / hydra.sweep.subdir.")
    config: dict[str, Any] | None = Field(
        None, description="The validated config the job records in its manifest; None when it does not validate."
    )
