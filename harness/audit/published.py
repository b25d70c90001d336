"""The common model every published-log importer produces: one task's memory, in order."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class PublishedTask(BaseModel):
    """One task of a published run: the reflections it accumulated and whether it was solved."""

    model_config = ConfigDict(frozen=True)

    domain: str = Field(description="alfworld | webshop | humaneval | mbpp | leetcode | hotpotqa | ...")
    source: str = Field(description="The run's folder or file, relative to data/reflexion-logs/.")
    task_id: str = Field(description="The task's name in the log (env_N, a problem id, a question index).")
    reflections: list[str] = Field(description="Reflections in the order they were written.")
    solved: bool = Field(description="Whether the task was solved by the end of the run.")
    trial_solved: int | None = Field(description="0-based trial in which it was first solved, or None.")
    trials: int | None = Field(description="Trials the task was played, when the log says so.")
