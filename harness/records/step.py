"""One step of an episode: the unit every trajectory is made of."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Step(BaseModel):
    """One action the actor took and what the environment answered."""

    model_config = ConfigDict(frozen=True)

    action: str = Field(description="The action as sent to the environment.")
    observation: str = Field(description="The observation the actor saw after it.")
