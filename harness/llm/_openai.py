"""Any OpenAI-compatible API through the official SDK, with retries on transient failures."""

from __future__ import annotations

import email.utils
import json
import logging
import math
import os
import time
from typing import Any

import openai
from openai import OpenAI
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from harness.errors import LLMError, LLMRequestError, MissingAPIKeyError
from harness.llm._answer import UnusableAnswer, read_answer
from harness.llm._config import ModelConfig
from harness.llm._deadline import AttemptDeadline, http_client
from harness.llm._types import LLMRequest, LLMResponse

log = logging.getLogger(__name__)

# Statuses worth another attempt: rate limits, server trouble, and the two the SDK itself retries.
_RETRYABLE_STATUSES = frozenset({408, 409, 429})
_WHAT_TO_CHECK = {
    400: "the request parameters (max_tokens, stop, prompt length) against what the model accepts",
    401: "the API key in the environment variable {key_env}",
    403: "that the key in {key_env} may use model {model!r}",
    404: "the model name {model!r} and that base_url ends in /v1",
    422: "the request parameters (max_tokens, stop, temperature, seed)",
}


class OpenAIBackend:
    """Completion and chat requests against the OpenAI API or any server that speaks it."""

    def __init__(self, config: ModelConfig) -> None:
        api_key = os.environ.get(config.api_key_env)
        if not api_key:
            raise MissingAPIKeyError(env_var=config.api_key_env, model=config.model, base_url=config.base_url)
        self.config = config
        # SDK retries are off: tenacity does them, so Retry-After and the attempt budget follow our config. The SDK's
        # timeout bounds each read; the deadline bounds the whole attempt (a trickling server trips only that).
        self._deadline = AttemptDeadline()
        self._client = OpenAI(
            base_url=config.base_url,
            api_key=api_key,
            timeout=config.timeout_s,
            max_retries=0,
            http_client=http_client(self._deadline),
        )
        # The URL and key stay out: the same model behind another URL or key answers the same.
        self.identity = f"openai/{config.api}:{config.model}"
        self._backoff = wait_exponential_jitter(initial=1, max=config.retry_max_wait_s, jitter=1)

    def generate(self, request: LLMRequest) -> LLMResponse:
        """Send `request`, retrying transient failures; the answer counts the failed attempts before it.

        A refused request raises LLMRequestError at once; a transient fault that outlasts the budget, LLMError.
        """
        retrying = Retrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(_is_transient),
            before_sleep=self._log_retry,
            reraise=True,
        )
        attempts = 0
        try:
            for attempt in retrying:
                attempts = attempt.retry_state.attempt_number
                with attempt:
                    response = self._attempt(request)
        except openai.APIStatusError as error:
            if _is_transient(error):
                raise self._gave_up(error, attempts) from error
            key_env, model = self.config.api_key_env, self.config.model
            check = _WHAT_TO_CHECK.get(error.status_code, "the request and the server's documentation")
            raise LLMRequestError(
                status=error.status_code,
                model=model,
                base_url=str(self._client.base_url),
                detail=error.message,
                check=check.format(key_env=key_env, model=model),
            ) from error
        except (openai.APIConnectionError, UnusableAnswer) as error:
            raise self._gave_up(error, attempts) from error
        return response.model_copy(update={"retries": attempts - 1})

    def _attempt(self, request: LLMRequest) -> LLMResponse:
        options: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "seed": request.seed,
        }
        if request.stop:  # some servers reject an empty stop list
            options["stop"] = request.stop
        if request.top_p is not None:  # unset, the body stays what it was before top_p existed
            options["top_p"] = request.top_p
        started = time.perf_counter()
        chat = request.kind == "chat" or self.config.api == "chat"
        try:
            with self._deadline.attempt(self.config.timeout_s):
                answer = self._ask(request, options, chat)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            # The SDK parses a 200's body without catching these: a proxy or overloaded server can cut it short or
            # send bytes that are no UTF-8.
            raise UnusableAnswer(f"a 200 answer whose body is not valid JSON ({error})") from error
        except RecursionError as error:
            # json.loads recurses once per nesting level: a hostile or broken body of 100,000 brackets.
            raise UnusableAnswer(
                f"a 200 answer whose JSON body is nested deeper than the parser goes ({error})"
            ) from error
        latency = time.perf_counter() - started
        return read_answer(
            answer, chat=chat, max_tokens=request.max_tokens, prompt_bytes=_text_bytes(request), config=self.config,
            latency_s=latency,
        )

    def _ask(self, request: LLMRequest, options: dict[str, Any], chat: bool) -> object:
        """One request through the SDK, to the chat endpoint or the completion one: its answer, unchecked."""
        if not chat:
            return self._client.completions.create(prompt=request.prompt or "", **options)
        if request.kind == "chat":
            messages = [message.model_dump() for message in request.messages or []]
        else:
            messages = [{"role": "user", "content": request.prompt or ""}]
        return self._client.chat.completions.create(messages=messages, **options)

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        retry_after = _retry_after_s(error) if isinstance(error, openai.APIStatusError) else None
        if not retry_after:
            return self._backoff(state)
        # The server knows when it can answer again, so its wait replaces the backoff (as the SDK's own
        # retry does), within our budget; a Retry-After of 0 would invite hammering, so it falls to backoff.
        return min(retry_after, self.config.retry_max_wait_s)

    def _log_retry(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        log.warning(
            "model %s attempt %d failed (%s); retrying in %.2fs",
            self.config.model,
            state.attempt_number,
            self._describe(error) if error else "no error",
            state.next_action.sleep if state.next_action else 0.0,
        )

    def _gave_up(self, error: BaseException, attempts: int) -> LLMError:
        return LLMError(
            f"model {self.config.model!r} at {self._client.base_url} still failing after {attempts} attempts "
            f"(model.max_retries={self.config.max_retries}, model.retry_max_wait_s={self.config.retry_max_wait_s:g}); "
            f"the last one failed with {self._describe(error)}."
        )

    def _describe(self, error: BaseException) -> str:
        """The fault in a few words, with the detail the SDK hides in its cause or body."""
        if isinstance(error, openai.APITimeoutError):
            return f"no answer within model.timeout_s={self.config.timeout_s:g}"
        if isinstance(error, openai.APIStatusError):
            body = error.body if isinstance(error.body, dict) else {}
            detail = body.get("message") or error.message
            retry_after = error.response.headers.get("retry-after")
            waited = f" (Retry-After {retry_after})" if retry_after else ""
            return f"HTTP {error.status_code}{waited}: {str(detail).strip().rstrip('.')}"
        if isinstance(error, openai.APIConnectionError) and error.__cause__ is not None:
            return f"a connection error ({error.__cause__})"
        return str(error)


def _text_bytes(request: LLMRequest) -> int:
    """The request's own text in UTF-8 bytes: what its prompt tokens are made of."""
    texts = [request.prompt or ""] if request.kind == "completion" else [m.content for m in request.messages or []]
    return sum(len(text.encode("utf-8", "replace")) for text in texts)


def _is_transient(error: BaseException) -> bool:
    if isinstance(error, openai.APIStatusError):
        return error.status_code in _RETRYABLE_STATUSES or error.status_code >= 500
    # Timeouts are a subclass of connection errors in the SDK.
    return isinstance(error, (openai.APIConnectionError, UnusableAnswer))


def _retry_after_s(error: openai.APIStatusError) -> float | None:
    """Seconds the server asked us to wait: Retry-After as seconds or an HTTP date."""
    value = error.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        # "nan" parses as a float, and a sleep of NaN seconds raises: it says nothing, so the backoff decides.
        return None if math.isnan(seconds) else max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)
