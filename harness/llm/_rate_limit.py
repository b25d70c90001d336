"""A client-side limit of requests and tokens per minute: a Backend wrapper that sits under the cache.

CachedLLM(RateLimitedBackend(backend, limiter)): a cache hit never reaches the limiter, so it neither waits nor
counts. One limiter serves every role and condition that reaches the same API with the same model and key,
because that is what a provider's limit applies to.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from harness.errors import RateLimitError
from harness.llm._backend import Backend
from harness.llm._config import ModelConfig
from harness.llm._types import LLMRequest, LLMResponse

log = logging.getLogger(__name__)

WINDOW_S = 60.0
NOTICE_S = 5.0
"""A wait for the limit at least this long is said in the log: what it waits for, and how much the window holds."""
CHARS_PER_TOKEN = 4
"""OpenAI's rule of thumb for English text; only the estimate before a call uses it, the real count replaces it."""

LimitKey = tuple[str, str, str | None, str]
"""(backend, model, base_url, api_key_env): what one provider limit applies to."""


def estimate_tokens(request: LLMRequest) -> int:
    """Tokens a request may use, before it is sent: its text's characters / 4, plus all of max_tokens."""
    if request.kind == "completion":
        characters = len(request.prompt or "")
    else:
        characters = sum(len(message.content) for message in request.messages or [])
    return math.ceil(characters / CHARS_PER_TOKEN) + request.max_tokens


@dataclass
class Grant:
    """One request let through: when, and the tokens charged for it (the estimate until settled)."""

    at: float
    tokens: int


class RateLimiter:
    """At most `requests_per_minute` requests and `tokens_per_minute` tokens in any window of `window_s` (a minute).

    A sliding window over the grants themselves, so the bound holds in every window, not on average.
    Waiting requests are served first come, first served: a large request is not starved by small ones.
    """

    def __init__(
        self,
        model: str,
        requests_per_minute: int | None,
        tokens_per_minute: int | None,
        window_s: float = WINDOW_S,
    ) -> None:
        self.model = model
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self.window_s = window_s
        self._granted: deque[Grant] = deque()
        self._queue: deque[object] = deque()
        self._changed = threading.Condition()

    def acquire(self, tokens: int) -> Grant:
        """Wait until a request of `tokens` fits both limits, and charge it; raises if it can never fit."""
        if self.tokens_per_minute is not None and tokens > self.tokens_per_minute:
            raise RateLimitError(model=self.model, tokens=tokens, tokens_per_minute=self.tokens_per_minute)
        ticket, noticed = object(), False
        with self._changed:
            self._queue.append(ticket)
            try:
                while True:
                    if self._queue[0] is not ticket:
                        self._changed.wait()
                        continue
                    now = time.monotonic()
                    wait_s = self._wait_s(now, tokens)
                    if wait_s <= 0:
                        grant = Grant(at=now, tokens=tokens)
                        self._granted.append(grant)
                        return grant
                    if wait_s >= NOTICE_S and not noticed:
                        noticed = True
                        log.warning(self._notice(wait_s, tokens))
                    self._changed.wait(wait_s)
            finally:
                self._queue.remove(ticket)
                self._changed.notify_all()  # the next in line re-checks

    def _notice(self, wait_s: float, tokens: int) -> str:
        """What a long wait waits for. Holds the lock."""
        charged = sum(g.tokens for g in self._granted)
        return (
            f"model {self.model} waits {wait_s:.0f} s for its rate limit (requests_per_minute="
            f"{self.requests_per_minute}, tokens_per_minute={self.tokens_per_minute}): the last {self.window_s:.0f} s "
            f"hold {len(self._granted)} request(s) charged {charged:,} tokens, and this one needs {tokens:,}"
        )

    def settle(self, grant: Grant, tokens: int) -> None:
        """Charge a finished request its real token count instead of the estimate."""
        with self._changed:
            grant.tokens = tokens
            self._changed.notify_all()

    def _wait_s(self, now: float, tokens: int) -> float:
        """Seconds until a request of `tokens` fits; <= 0 when it fits now. Holds the lock."""
        # Expiry written as at + window <= now, the very sum the waits below count down to, so a grant that
        # has just been waited out is gone, never a rounding error short of it.
        while self._granted and self._granted[0].at + self.window_s <= now:
            self._granted.popleft()
        waits = [0.0]
        if self.requests_per_minute is not None and len(self._granted) >= self.requests_per_minute:
            # The grant whose expiry leaves requests_per_minute - 1 in the window.
            oldest_to_go = self._granted[len(self._granted) - self.requests_per_minute]
            waits.append(oldest_to_go.at + self.window_s - now)
        if self.tokens_per_minute is not None:
            excess = sum(g.tokens for g in self._granted) + tokens - self.tokens_per_minute
            for grant in self._granted:
                if excess <= 0:
                    break
                excess -= grant.tokens
                waits.append(grant.at + self.window_s - now)
        return max(waits)


class RateLimitedBackend:
    """A Backend whose calls first wait for their share of a limiter; the answer corrects the token estimate."""

    def __init__(self, backend: Backend, limiter: RateLimiter) -> None:
        self.backend = backend
        self.limiter = limiter
        self.identity = backend.identity

    def generate(self, request: LLMRequest) -> LLMResponse:
        """Wait for the limiter, call the backend, then charge the tokens it reports.

        A failed call keeps its estimate: the provider counted the request all the same; so does an answer whose
        server sent no token counts, as 0 would let the next requests overrun the limit.
        """
        grant = self.limiter.acquire(estimate_tokens(request))
        response = self.backend.generate(request)
        if not response.usage.unreported_calls:
            self.limiter.settle(grant, response.usage.prompt_tokens + response.usage.completion_tokens)
        return response


def limit_key(model: ModelConfig) -> LimitKey:
    """What a provider's limit applies to: the API, the model, and the key (by the name of its variable)."""
    return (model.backend, model.model, model.base_url, model.api_key_env)


def shared_limiters(models: Iterable[ModelConfig]) -> dict[LimitKey, RateLimiter]:
    """One limiter per limit key that any of `models` limits, at the strictest limit given for that key.

    Two configs of one API model (the run's, and a condition's swapped-in copy of the same yaml) describe one
    provider limit; the strictest stated value is the safe reading of it.
    """
    limits: dict[LimitKey, tuple[str, int | None, int | None]] = {}
    for model in models:
        key = limit_key(model)
        name, rpm, tpm = limits.get(key, (model.model, None, None))
        limits[key] = (name, _stricter(rpm, model.requests_per_minute), _stricter(tpm, model.tokens_per_minute))
    return {key: RateLimiter(*limit) for key, limit in limits.items() if limit[1] is not None or limit[2] is not None}


def _stricter(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)
