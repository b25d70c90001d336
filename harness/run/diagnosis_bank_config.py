"""The re-reflection bank's settings (`scenario` of configs/experiment/diagnosis_bank.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from harness.llm import CacheConfig

BANK_SOURCES = ("self_diagnosis", "grounded_template", "programmatic", "third_party")


class DiagnosisBankConfig(BaseModel):
    """Reflection sources re-diagnose the same stored failed trajectories (harness/run/scenarios/diagnosis_bank.py):
    each trajectory is read by every source, so the comparison is paired per trajectory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["diagnosis_bank"] = "diagnosis_bank"
    runs: list[str] = Field(
        default_factory=list, description="Run directories whose failed trials are the bank (every domain they hold)."
    )
    items: str | None = Field(
        None, description="A bank_items.jsonl of an earlier bank to take the trajectories from, instead of `runs`."
    )
    truths: str | None = Field(
        None, description="A truth.jsonl of an earlier bank: its ground truths are reused for the same steps."
    )
    sources: list[str] = Field(default=list(BANK_SOURCES), min_length=1, description="The sources, control first.")
    per_task: StrictInt = Field(
        1, ge=1, description="Failed trajectories kept per (domain, task), the first in each run's order."
    )
    cache: CacheConfig = Field(description="The bank's answers: the committed ones are replayed by default.")
