"""The ALFWorld env config (configs/env/alfworld.yaml), validated."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, field_validator

from harness.domains.frozen_in_path import FrozenIn


ENGINE_WORKERS_PER_CORE = 2
"""Each episode keeps its engine worker, so a step waits while another episode's step runs there, a core free or not.
Two workers a core make that rarer (a 0.3 s first reset holds up half as many episodes) without starving the run's
own process, whose Python every step passes through (docs/configuration.md, Concurrency)."""


class AlfworldEnvConfig(BaseModel):
    """Which ALFWorld games to play, and the episode's step budget."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["alfworld"] = "alfworld"
    data_dir: str | None = Field(None, description="ALFWorld data folder; None = the project's data/alfworld.")
    games: list[str] = Field(default_factory=list, description="Game ids or task folders; empty = no name filter.")
    task_types: list[str] = Field(default_factory=list, description="Task types (put, clean, ... or full prefixes).")
    set: str | None = Field(None, description="A named set file in data/alfworld/sets/.")
    first_n: StrictInt | None = Field(None, ge=1, description="Keep the first N games after the other filters.")
    frozen_in: FrozenIn = Field(None, description="A run directory: keep the games whose memory froze there.")
    frozen_condition: str = Field("self_diagnosis", description="The condition of `frozen_in` whose memory counts.")
    frozen_similarity_threshold: StrictFloat = Field(
        0.85, gt=0, le=1, description="`frozen_in` counts a reflection repeated at this SequenceMatcher ratio or more."
    )
    frozen_rrr_threshold: StrictFloat = Field(
        0.5, gt=0, le=1, description="`frozen_in` counts a task frozen at this RRR or more (mean over its repeats)."
    )
    max_steps: StrictInt = Field(49, ge=1, description="Actions per episode (Reflexion: 49).")
    newline_before_prompt: bool = Field(
        False,
        description="Harness option: a newline before the actor prompt's closing '>' (Reflexion puts none: '...OK.>').",
    )
    translation_cache: str | None = Field(
        "results/alfworld_translations",
        description="Folder keeping each game's PDDL translation for later processes; null = in memory only.",
    )
    engine_workers: int | None = Field(
        None,
        ge=0,
        strict=True,
        description="Engine processes for concurrent episodes at most (started as episodes overlap); null = "
        f"{ENGINE_WORKERS_PER_CORE} per core this process may use (this process when the run plays one episode at a "
        "time); 0 or 1 = in this process.",
    )

    prefetch_translations: bool = Field(
        True,
        description="With engine workers and a translation_cache: translate the games ahead of their first reset in "
        "a process that runs only on idle CPU (envs/alfworld_prefetch.py); the same translations either way.",
    )

    @field_validator("translation_cache")
    @classmethod
    def _a_folder(cls, value: str | None) -> str | None:
        # Translations are files inside it: a file or a device in its place would silently keep none.
        if value is not None and os.path.exists(value) and not os.path.isdir(value):
            raise ValueError("it is a file or a device, not a folder; name a folder (created if missing), or null")
        return value

    def workers(self) -> int:
        """The most engine processes to use: engine_workers, or ENGINE_WORKERS_PER_CORE a core this process may use."""
        if self.engine_workers is None:
            return ENGINE_WORKERS_PER_CORE * len(os.sched_getaffinity(0))
        return self.engine_workers
