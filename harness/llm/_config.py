"""Validated settings of a model (configs/model/<name>.yaml) and of the response cache."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator
from pydantic_core import PydanticCustomError

from harness.llm._backends import BACKENDS
from harness.llm._url import secret_parts, secret_reason, shape_problem, shown_url
from harness.records.number import Number
from harness.records.registry import choices

CacheMode = Literal["off", "record", "replay", "auto"]


class Price(BaseModel):
    """A model's list price, for cost estimates only: nothing is billed or limited by it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_usd_per_million: Number = Field(ge=0, description="USD per million prompt (input) tokens.")
    completion_usd_per_million: Number = Field(ge=0, description="USD per million completion (output) tokens.")
    as_of: str = Field(description="When and where the price was read, e.g. '2026-11-30, openai.com/api/pricing'.")


class ModelConfig(BaseModel):
    """One model: which backend serves it and how to reach or run it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="The config's name, e.g. 'qwen2.5-coder-1.5b', 'smollm2-135m', 'gpt-4o-mini'.")
    backend: str = Field(
        description="llamacpp: embedded llama.cpp; openai: any OpenAI-compatible API; or a backend an installed "
        "package registers (`reflexion_harness.backends`)."
    )
    model: str = Field(description="Embedded model key (llamacpp) or the API's model name (openai).")
    api: Literal["completion", "chat"] = Field(
        "completion",
        description="openai: the endpoint for completion-kind requests; 'chat' sends the prompt as one user message.",
    )
    base_url: str | None = Field(None, description="openai: server URL ending in /v1; None = api.openai.com.")
    api_key_env: str = Field("OPENAI_API_KEY", description="openai: NAME of the environment variable with the key.")
    n_ctx: StrictInt = Field(8192, ge=16, description="llamacpp: context window in tokens.")
    n_threads: StrictInt | None = Field(None, ge=1, description="llamacpp: CPU threads; None = all cores.")
    n_batch: StrictInt = Field(512, ge=1, description="llamacpp: prompt tokens evaluated per batch.")
    prefix_store_mb: StrictInt = Field(
        0,
        ge=0,
        description="llamacpp: megabytes of KV cache kept from earlier prompts, so that a prompt sharing a long start "
        "with one of them is evaluated only from where they part; 0 = only the last prompt's, as llama-cpp-python "
        "keeps it.",
    )
    timeout_s: Number = Field(
        120.0, gt=0, description="openai: seconds one HTTP attempt may take in all (connect, send, the whole answer)."
    )
    max_retries: StrictInt = Field(
        6, ge=0, description="openai: attempts after the first on 429, 5xx and network errors."
    )
    retry_max_wait_s: Number = Field(60.0, ge=0, description="openai: longest sleep between attempts.")
    max_answer_chars_per_token: StrictInt = Field(
        32,
        ge=1,
        description="openai: an answer longer than max_tokens times this many characters is refused and retried as a "
        "broken answer (the server ignored max_tokens). A token of prose or code is about 4 characters; 32 leaves "
        "room for tokens of long runs of spaces or dashes.",
    )
    max_answer_chars: StrictInt = Field(
        1_000_000,
        ge=1,
        description="openai: the most characters any answer may have, whatever its max_tokens (refused and retried "
        "beyond): about 250,000 tokens of prose, more than any model writes in one answer.",
    )
    requests_per_minute: StrictInt | None = Field(
        None, ge=1, description="Requests sent in any 60 s, shared by all roles on this API and model; None = no limit."
    )
    tokens_per_minute: StrictInt | None = Field(
        None, ge=1, description="Tokens (prompt + completion) in any 60 s, shared likewise; None = no limit."
    )
    price: Price | None = Field(None, description="List price for the cost estimate; None = free or unknown.")
    reflector_stop: list[str] = Field(
        default_factory=list,
        description="Stop strings added to the completion requests this model sends as reflector. Reflexion's "
        "reflector had none (keep [] for API models); the embedded models run on into an imagined new episode.",
    )

    @field_validator("backend", mode="before")
    @classmethod
    def _registered(cls, name: object) -> object:
        # Refused in the words and type pydantic gives a Literal of the registered names.
        if not isinstance(name, str) or name not in BACKENDS:
            expected = choices(BACKENDS.names())
            raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
        return name

    @field_validator("reflector_stop")
    @classmethod
    def _real_newlines(cls, stops: list[str]) -> list[str]:
        # Hydra keeps a typed \n as backslash and n: such a stop never matches, and the run would go on unstopped.
        if any("\\n" in stop for stop in stops):
            raise ValueError(
                "a stop string holds a backslash and n where a newline is meant (Hydra keeps \\n as typed); put the "
                "newline itself in, e.g. in bash $'model.reflector_stop=[\"\\n> \"]'"
            )
        return stops

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError("a server URL starts with http:// or https:// and ends in /v1")
        if url is not None and secret_parts(url):
            # `shown` is what a refusal may quote in the value's place: the URL with its secrets hidden.
            raise PydanticCustomError("url_with_secret", secret_reason(url), {"shown": shown_url(url)})
        if url is not None and (problem := shape_problem(url)):
            raise ValueError(f"a server URL starts with http:// or https:// and ends in /v1; this one {problem}")
        return url

    def threads(self) -> int:
        """The thread count llama.cpp gets."""
        return self.n_threads or os.cpu_count() or 1


class CacheConfig(BaseModel):
    """Where responses are cached and whether the cache is read, written, or both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: CacheMode = Field(
        "auto",
        description="off: always call, store nothing; record: a new recording, every request asked of the model "
        "once and stored, one the file answered before the run refused; "
        "replay: only the cache, a miss is an error; auto: the cache first, call and store on a miss.",
    )
    path: str = Field(description="The JSONL cache file.")
