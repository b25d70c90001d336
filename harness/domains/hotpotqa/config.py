"""The HotpotQA env config (configs/env/hotpotqa.yaml), validated."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from harness.domains.frozen_in_path import FrozenIn

QuestionType = Literal["bridge", "comparison"]
QuestionLevel = Literal["easy", "medium", "hard"]

PROTOCOL_MEMORY_WINDOW = 1_000_000
"""Reflexion's CoT agent reads every reflection it has written (`format_reflections(self.reflections)`): a window
wider than any trial budget keeps them all."""


class HotpotQAEnvConfig(BaseModel):
    """Which of the shipped HotpotQA questions to answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["hotpotqa"]
    questions: list[str] = Field(
        default_factory=list, description="HotpotQA ids ('5a7613c15542994ccc9186bf'); empty = all 100."
    )
    types: list[QuestionType] = Field(default_factory=list, description="Keep these question types; empty = both.")
    levels: list[QuestionLevel] = Field(default_factory=list, description="Keep these levels; empty = all.")
    first_n: StrictInt | None = Field(None, ge=1, description="Keep the first N questions after the other filters.")
    frozen_in: FrozenIn = Field(None, description="A run directory: keep the tasks whose memory froze there.")
    frozen_condition: str = Field("self_diagnosis", description="The condition of `frozen_in` whose memory counts.")
    frozen_similarity_threshold: StrictFloat = Field(
        0.85, gt=0, le=1, description="`frozen_in` counts a reflection repeated at this SequenceMatcher ratio or more."
    )
    frozen_rrr_threshold: StrictFloat = Field(
        0.5, gt=0, le=1, description="`frozen_in` counts a task frozen at this RRR or more (mean over its repeats)."
    )
