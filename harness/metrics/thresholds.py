"""The two thresholds the repetition measures use, as one value a run records and every table names."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD


class Thresholds(BaseModel):
    """A run's `metrics.similarity_threshold` and `metrics.frozen_threshold` (the study's 0.85 and 0.5 by default)."""

    model_config = ConfigDict(frozen=True)

    similarity_threshold: float = Field(
        SIMILARITY_THRESHOLD, gt=0, le=1, description="A reflection repeats an earlier one at this ratio or more."
    )
    frozen_threshold: float = Field(FROZEN_THRESHOLD, gt=0, le=1, description="A memory is frozen at this RRR or more.")

    @property
    def repeat_rule(self) -> str:
        """How a repeat is decided, for a table's note: "ratio >= 0.85"."""
        return f"ratio >= {self.similarity_threshold:g}"

    @property
    def frozen_rule(self) -> str:
        """How frozen is decided, for a table's header or note: "RRR >= 0.5"."""
        return f"RRR >= {self.frozen_threshold:g}"


DEFAULT_THRESHOLDS = Thresholds()
