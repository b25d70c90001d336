"""Tokens consumed by model calls, as records keep them per role."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Usage(BaseModel):
    """Tokens consumed by one or more calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = Field(0, ge=0, description="Tokens read.")
    completion_tokens: int = Field(0, ge=0, description="Tokens generated.")

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )
