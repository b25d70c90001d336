"""The sums domain as the harness names it: its env config, its record model, and where its rules live."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.extensions import DomainSpec, Lazy


class SumsEnvConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["sums"] = "sums"
    first_n: int | None = Field(None, ge=1, description="Keep the first N sums.")


class SumAttempt(BaseModel):
    """What a trial keeps in its record: the answer as read, and whether it was a number."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["sums"] = "sums"
    answer: str
    numeric: bool


SPEC = DomainSpec(
    name="sums",
    env_config=SumsEnvConfig,
    memory_window=2,
    builder=Lazy("reflexion_plugin_example.play:build"),
    target=Lazy("reflexion_plugin_example.play:target"),
    mentions=Lazy("reflexion_plugin_example.play:mentions"),
    mention_note=Lazy.of("Sums: the object is the right total, named as digits."),
    details=SumAttempt,
)
