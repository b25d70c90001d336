"""Tokens consumed by model calls, as records keep them per role."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Usage(BaseModel):
    """Tokens consumed by one or more calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = Field(0, ge=0, description="Tokens read, by the calls whose server counted them.")
    completion_tokens: int = Field(0, ge=0, description="Tokens generated, by the calls whose server counted them.")
    unreported_calls: int = Field(
        0,
        ge=0,
        # Left out at 0, so records and cache entries of servers that count their tokens stay as they were written.
        exclude_if=lambda calls: calls == 0,
        description="Calls whose server sent no token counts: their tokens are unknown, in neither count above.",
    )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            unreported_calls=self.unreported_calls + other.unreported_calls,
        )
