"""The `metrics` settings: the thresholds the repetition measures use and whether the run scores its diagnoses
(configs/config.yaml `metrics`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from harness.records.number import Number


class MetricsSettings(BaseModel):
    """The thresholds the repetition measures use: the study's empirical choices by default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    similarity_threshold: Number = Field(
        0.85, gt=0.0, le=1.0, description="A reflection repeats an earlier one at this SequenceMatcher ratio or more."
    )
    frozen_threshold: Number = Field(
        0.5, gt=0.0, le=1.0, description="A task's memory is frozen at this RRR or more."
    )
    diagnosis: bool = Field(
        False,
        description="At the run's end, each failed trial's ground truth and its reflection's claims to "
        "diagnosis.jsonl (docs/diagnosis.md); off by default: ALFWorld's replays the engine, 1-2 s a trial.",
    )
