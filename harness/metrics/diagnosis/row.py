"""One row of a diagnosis table (a condition, a heuristic or the chance row) and its measures' shares: models only,
so the condition metrics can carry a condition's row without importing how it is measured."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RowKind = Literal["chance", "heuristic", "condition"]
NoDiagnosisInterval = Literal["no reflections", "too few tasks", "tasks alike", "undefined", "expected value"]


class MeasureShare(BaseModel):
    """One measure of one row: its share over the reflections where it is defined, with its interval over tasks."""

    model_config = ConfigDict(frozen=True)

    count: float = Field(ge=0, description="Reflections scoring 1 (the chance row: the sum of its expectations).")
    n: int = Field(ge=0, description="Reflections where the measure is defined.")
    tasks: int = Field(ge=0, description="Tasks with one: the units the interval resamples.")
    share: float | None = Field(description="The mean over tasks of each task's share; None when n is 0.")
    low: float | None = Field(None, description="Lower end of the interval over tasks; None with `no_interval`.")
    high: float | None = Field(None, description="Upper end of the same interval.")
    no_interval: NoDiagnosisInterval | None = Field(None, description="Why there is no interval; None with one.")


class DiagnosisRow(BaseModel):
    """One row of the table: a condition's reflections, or a heuristic or the chance row on the same trials."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: RowKind
    trials: int = Field(ge=0, description="Scored trials the row speaks about (its reflections, for a condition).")
    tasks: int = Field(ge=0, description="Distinct tasks among them.")
    measures: dict[str, MeasureShare] = Field(description="By measure name (harness.metrics.diagnosis.scores).")
    claimed_steps: float | None = Field(description="Mean steps named per reflection; None without one.")
