"""One model call of a trial as the record keeps it: which request, who served it, how it ended."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ModelCall(BaseModel):
    """A call's identity and what the server said about itself, so drift and shared answers show afterwards."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["actor", "reflector"]
    key: str = Field(description="The request's cache key (backend identity and request): equal keys, equal answers.")
    cached: bool = Field(description="Answered from the cache.")
    backend: str = Field(description="The backend's identity, e.g. 'llamacpp:<key>:sha256=...' or 'openai:<model>'.")
    served_model: str | None = Field(None, description="The model id the server said answered; None if unsaid.")
    base_url_host: str | None = Field(None, description="The API's host (no path, no key); None for embedded models.")
    system_fingerprint: str | None = Field(None, description="The API's system fingerprint; None if unsaid.")
    finish_reason: str | None = Field(None, description="stop, length, ...; None if unsaid.")
    temperature: float = Field(ge=0.0, description="The temperature the request was sent at.")
    top_p: float | None = Field(None, description="The top_p it was sent with; None = not sent.")
