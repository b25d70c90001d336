"""What index.html shows of each run, sweep and audit under a folder, as plain values.

Nothing here is HTML: every string is the text as a manifest, a record or a file name holds it, escaped only when
the page is written; `report` is a path, made a link target (percent-encoded) only then.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["run", "sweep", "audit", "propagation"]
KINDS: tuple[Kind, ...] = ("run", "sweep", "audit", "propagation")


class IndexRow(BaseModel):
    """One run directory, sweep, audit or plant-and-trace study folder."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    path: str = Field(description="Its folder, relative to the folder indexed (that folder's own name for itself).")
    status: str = Field(description="A run's manifest status, a sweep's over its jobs, or why there is none.")
    domains: list[str] = Field(default_factory=list, description="The domains it played (a sweep's, an audit's).")
    conditions: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list, description="The actor and reflector models, as records name them.")
    started: str | None = Field(None, description="When it started (UTC, to the minute); None when unknown.")
    trials_done: int | None = Field(None, ge=0, description="Trials of the plan recorded; None for an audit.")
    trials_planned: int | None = Field(None, ge=0, description="At most this many trials; None when unknown.")
    figures: list[str] = Field(default_factory=list, description="Headline figures, one line each.")
    report: str | None = Field(
        None, description="The path of its page (report.html, audit.html) relative to index.html; None when none."
    )
    search: list[str] = Field(
        default_factory=list, description="More text the filter box finds the row by (the task ids it played)."
    )
