"""The `metrics` settings: the thresholds the repetition measures use, the study design's primary measure, and
whether the run scores its diagnoses
(configs/config.yaml `metrics`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.metrics.effects import DEFAULT_PRIMARY, MEASURES
from harness.records.number import Number


class MetricsSettings(BaseModel):
    """The thresholds the repetition measures use (the study's empirical choices by default) and the primary
    measure of the effects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    similarity_threshold: Number = Field(
        0.85, gt=0.0, le=1.0, description="A reflection repeats an earlier one at this SequenceMatcher ratio or more."
    )
    frozen_threshold: Number = Field(
        0.5, gt=0.0, le=1.0, description="A task's memory is frozen at this RRR or more."
    )
    primary_measure: str = Field(
        DEFAULT_PRIMARY,
        description="The study design's primary effect measure, Holm-adjusted over the conditions alone; every other "
        "measure is secondary, adjusted over all its rows together (docs/metrics.md). One of the effects' measures.",
    )

    @field_validator("primary_measure")
    @classmethod
    def _a_measure(cls, value: str) -> str:
        if value not in MEASURES:
            raise ValueError(f"metrics.primary_measure {value!r} is no effect measure; accepted: {', '.join(MEASURES)}.")
        return value
    diagnosis: bool = Field(
        False,
        description="At the run's end, each failed trial's ground truth and its reflection's claims to "
        "diagnosis.jsonl (docs/diagnosis.md); off by default: ALFWorld's replays the engine, 1-2 s a trial.",
    )
