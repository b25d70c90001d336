"""The values that cross the LLM boundary: requests, responses, token usage and the caller's identity."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.records.usage import Usage


class ChatMessage(BaseModel):
    """One turn of a chat."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class LLMRequest(BaseModel):
    """Everything that determines a model's answer; the cache key is computed from exactly these fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["completion", "chat"] = Field(description="A raw text continuation, or a chat turn.")
    prompt: str | None = Field(None, description="The text to continue (completion only).")
    messages: list[ChatMessage] | None = Field(None, description="The conversation so far (chat only).")
    max_tokens: int = Field(256, ge=1, description="Upper bound on generated tokens.")
    temperature: float = Field(0.0, ge=0.0, description="Sampling temperature; 0 is greedy.")
    top_p: float | None = Field(
        None, gt=0.0, le=1.0, description="Nucleus sampling mass; None = not sent (the backend's default)."
    )
    stop: list[str] = Field(default_factory=list, description="Generation stops before any of these strings.")
    seed: int = Field(0, description="Sampling seed, sent to the backend.")

    @model_validator(mode="after")
    def _payload_matches_kind(self) -> LLMRequest:
        # A request carrying both payloads would be sent one way but cached under both.
        if self.kind == "completion" and (self.prompt is None or self.messages is not None):
            raise ValueError("a completion request needs `prompt` and no `messages`")
        if self.kind == "chat" and (not self.messages or self.prompt is not None):
            raise ValueError("a chat request needs non-empty `messages` and no `prompt`")
        return self


class LLMResponse(BaseModel):
    """A model's answer to one request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(description="The generated text, without the stop string.")
    usage: Usage = Field(description="Tokens of the original call (kept on cache hits).")
    latency_s: float = Field(ge=0.0, description="Wall time of the original successful call (kept on cache hits).")
    cached: bool = Field(False, description="True when served from the cache instead of a model.")
    retries: int = Field(0, ge=0, description="Failed attempts before this answer; 0 on cache hits.")
    served_model: str | None = Field(None, description="The model id the server says answered; None if unsaid.")
    system_fingerprint: str | None = Field(None, description="The API's system fingerprint; None if unsaid.")
    finish_reason: str | None = Field(None, description="Why generation ended (stop, length, ...); None if unsaid.")


class CallContext(BaseModel):
    """Who asked: named in error messages so a failure points at a task, trial, condition and role."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    trial: int
    condition: str
    role: str
    repeat: int | None = None
    """The chain, in a run of several repeats; None in a run of one."""

    def describe(self) -> str:
        """A short phrase naming the caller."""
        repeat = "" if self.repeat is None else f", repeat {self.repeat}"
        return f"task {self.task_id}, trial {self.trial}{repeat}, condition {self.condition}, role {self.role}"


def chat_request(messages: list[ChatMessage], max_tokens: int, seed: int, temperature: float = 0.0) -> LLMRequest:
    """A chat request, greedy unless told otherwise."""
    return LLMRequest(kind="chat", messages=messages, max_tokens=max_tokens, temperature=temperature, seed=seed)
