"""What a 200 answer of an OpenAI-compatible server must hold before the harness uses it.

The SDK builds its answer objects without validating them, and returns the body as text when it is not JSON, so a
proxy's HTML page, a null text, a negative token count or an answer far longer than `max_tokens` allows would reach
the records and the cache as they came, or crash the run. Each is an `UnusableAnswer` here: a server fault, retried
within the backend's budget like a dropped connection, and named in the run's log.

A server that sends no token counts is not a broken answer: its tokens are unknown, and the answer's usage says so
(`Usage.unreported_calls`) instead of counting 0.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from harness.llm._config import ModelConfig
from harness.llm._types import LLMResponse, Usage
from harness.records.validation_reason import validation_reason

_SHOWN_BODY = 60
"""Characters of a body that is no JSON quoted in the retry's log line."""
TEMPLATE_TOKENS = 1024
"""Tokens a server may add to a request's own (a chat template, a default system prompt) or to max_tokens (a stop
sequence, an end-of-text token) before its count is taken for a broken answer: no tokenizer makes more tokens of a
text than it has bytes."""


class UnusableAnswer(Exception):
    """A 200 whose body is no usable completion: a server fault, so retried."""


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Usage(_Read):
    # Strict and never negative: a count that is not a count is a broken answer, not an unknown one.
    prompt_tokens: StrictInt | None = Field(None, ge=0)
    completion_tokens: StrictInt | None = Field(None, ge=0)


class _CompletionChoice(_Read):
    text: StrictStr
    finish_reason: StrictStr | None = None


class _Message(_Read):
    content: StrictStr


class _ChatChoice(_Read):
    message: _Message
    finish_reason: StrictStr | None = None


class _Answer(_Read):
    usage: _Usage | None = None
    model: StrictStr | None = None
    system_fingerprint: StrictStr | None = None


class _CompletionAnswer(_Answer):
    choices: list[_CompletionChoice]


class _ChatAnswer(_Answer):
    choices: list[_ChatChoice]


def answer_bound(max_tokens: int, config: ModelConfig) -> int:
    """The most characters an answer to a request of `max_tokens` tokens may have."""
    return min(max_tokens * config.max_answer_chars_per_token, config.max_answer_chars)


def read_answer(
    answer: object, *, chat: bool, max_tokens: int, prompt_bytes: int, config: ModelConfig, latency_s: float
) -> LLMResponse:
    """The SDK's answer to one request as an LLMResponse, or UnusableAnswer saying what is wrong with it.

    `prompt_bytes` is the request's text in UTF-8 bytes (the prompt, or every message's content)."""
    if not isinstance(answer, BaseModel):
        shown = ascii(str(answer)[:_SHOWN_BODY])
        raise UnusableAnswer(f"a 200 answer whose body is not a JSON object but text starting {shown}")
    try:
        # The SDK would warn of every type it let by.
        read = (_ChatAnswer if chat else _CompletionAnswer).model_validate(answer.model_dump(warnings=False))
    except ValidationError as error:
        raise UnusableAnswer(f"a 200 answer that is no completion ({validation_reason(error)})") from None
    if not read.choices:
        raise UnusableAnswer("a 200 answer with an empty choices list")
    choice = read.choices[0]
    text = choice.message.content if isinstance(choice, _ChatChoice) else choice.text
    _refuse_lone_surrogates(
        {
            "text": text,
            "model": read.model,
            "system_fingerprint": read.system_fingerprint,
            "finish_reason": choice.finish_reason,
        }
    )
    bound = answer_bound(max_tokens, config)
    if len(text) > bound:
        raise UnusableAnswer(
            f"an answer of {len(text):,} characters to a request of max_tokens={max_tokens}, over the bound of "
            f"{bound:,} (model.max_answer_chars_per_token={config.max_answer_chars_per_token} per token, at most "
            f"model.max_answer_chars={config.max_answer_chars:,}): the server ignored max_tokens"
        )
    return LLMResponse(
        text=text,
        usage=_usage(read.usage, prompt_bytes, max_tokens),
        latency_s=latency_s,
        # What the server says about itself, so a model changed behind the same name shows in the records.
        served_model=read.model or None,
        system_fingerprint=read.system_fingerprint,
        finish_reason=choice.finish_reason,
    )


def _refuse_lone_surrogates(fields: dict[str, str | None]) -> None:
    """JSON's \\udfff escape alone (a server cutting an emoji in half) reads as a character that no UTF-8 can
    hold: the records and the cache could not be written."""
    for name, value in fields.items():
        if value is not None:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as error:
                lone = ascii(value[error.start : error.end])
                raise UnusableAnswer(
                    f"a 200 answer whose {name} holds a lone surrogate ({lone}), which is no character"
                ) from None


def _usage(usage: _Usage | None, prompt_bytes: int, max_tokens: int) -> Usage:
    """The answer's token counts; a server that sends none (or only some) leaves them unknown, never 0; counts no
    tokenizer could reach (10**30 prompt tokens) are a broken answer: the cost and the rate limit would take them."""
    if usage is None or usage.prompt_tokens is None or usage.completion_tokens is None:
        return Usage(unreported_calls=1)
    bounds = {"prompt": (usage.prompt_tokens, prompt_bytes), "completion": (usage.completion_tokens, max_tokens)}
    for part, (count, own) in bounds.items():
        if count > own + TEMPLATE_TOKENS:
            shown = f"{count:,}" if count < 10**12 else f"a {len(str(count))}-digit number of"
            of = f"a prompt of {own:,} bytes" if part == "prompt" else f"max_tokens={own:,}"
            raise UnusableAnswer(
                f"a 200 answer counting {shown} {part} tokens for {of}, more than any tokenizer makes (at most "
                f"{own + TEMPLATE_TOKENS:,} with a chat template's {TEMPLATE_TOKENS:,})"
            )
    return Usage(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)
