"""The client-side rate limit: requests and tokens per window across threads, refusals, and its place under the cache."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness.errors import RateLimitError
from harness.llm.pool import LLMPool
from harness.llm import (
    CachedLLM,
    CacheStore,
    ChatMessage,
    LLMRequest,
    LLMResponse,
    ModelConfig,
    RateLimitedBackend,
    RateLimiter,
    Usage,
    estimate_tokens,
    shared_limiters,
)
from harness.llm import _rate_limit as rate_limit
from harness.llm._rate_limit import Grant

WINDOW_S = 0.2  # a short real window keeps each test well under a second


class FakeBackend:
    """Answers at once with fixed usage, counting its calls."""

    identity = "fake"

    def __init__(self, usage: Usage | None = None) -> None:
        self.usage = usage or Usage(prompt_tokens=3, completion_tokens=2)
        self.calls = 0
        self._lock = threading.Lock()

    def generate(self, request: LLMRequest) -> LLMResponse:
        with self._lock:
            self.calls += 1
        return LLMResponse(text=f"echo {request.prompt}", usage=self.usage, latency_s=0.0)


def request(prompt: str = "x" * 40, max_tokens: int = 10) -> LLMRequest:
    return LLMRequest(kind="completion", prompt=prompt, max_tokens=max_tokens)


def in_threads(threads: int, each: int, work: Callable[[], None]) -> None:
    """Run `work()` `each` times in each of `threads` threads started together."""
    start = threading.Barrier(threads)

    def worker() -> None:
        start.wait()
        for _ in range(each):
            work()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=10)
    assert not any(thread.is_alive() for thread in pool), "a thread is still waiting"


def test_concurrent_threads_never_exceed_the_request_rate_in_any_window() -> None:
    limiter = RateLimiter("m", requests_per_minute=3, tokens_per_minute=None, window_s=WINDOW_S)
    grants: list[Grant] = []
    lock = threading.Lock()

    def acquire() -> None:
        grant = limiter.acquire(1)
        with lock:
            grants.append(grant)

    in_threads(threads=6, each=2, work=acquire)
    times = sorted(g.at for g in grants)
    assert len(times) == 12
    # Any window holding 4 grants would have its 1st and 4th closer than WINDOW_S.
    assert all(later >= earlier + WINDOW_S for earlier, later in zip(times, times[3:]))
    assert times[-1] - times[0] >= 3 * WINDOW_S  # 12 requests at 3 per window: three waits at least


def test_the_token_limit_holds_in_every_window_and_real_usage_replaces_the_estimate() -> None:
    limiter = RateLimiter("m", requests_per_minute=None, tokens_per_minute=100, window_s=WINDOW_S)
    grants: list[Grant] = []
    lock = threading.Lock()

    def call() -> None:
        grant = limiter.acquire(40)  # estimated
        limiter.settle(grant, 30)  # used
        with lock:
            grants.append(grant)

    in_threads(threads=4, each=3, work=call)
    grants.sort(key=lambda g: g.at)
    for i, first in enumerate(grants):
        in_window = [g.tokens for g in grants[i:] if g.at < first.at + WINDOW_S]
        assert sum(in_window) <= 100


def test_a_settled_request_frees_the_tokens_it_did_not_use() -> None:
    limiter = RateLimiter("m", requests_per_minute=None, tokens_per_minute=100, window_s=60.0)
    grant = limiter.acquire(90)
    limiter.settle(grant, 10)
    started = time.monotonic()
    limiter.acquire(90)  # 10 + 90 fit; with the estimate it would wait a minute
    assert time.monotonic() - started < 0.5


def test_a_long_wait_for_the_limit_is_said_in_the_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """'The client-side rate limiter then stalls each request for its whole window with nothing said.'"""
    monkeypatch.setattr(rate_limit, "NOTICE_S", 0.1)
    limiter = RateLimiter("gpt-4o-mini", requests_per_minute=None, tokens_per_minute=100, window_s=WINDOW_S)
    limiter.acquire(90)
    limiter.acquire(90)  # waits the window out
    (notice,) = [record.getMessage() for record in caplog.records if "waits" in record.getMessage()]
    assert notice.startswith("model gpt-4o-mini waits 0 s for its rate limit (requests_per_minute=None, ")
    assert notice.endswith(
        "tokens_per_minute=100): the last 0 s hold 1 request(s) charged 90 tokens, and this one needs 90"
    )


def test_a_request_larger_than_the_whole_token_budget_is_refused_at_once() -> None:
    backend = FakeBackend()
    limited = RateLimitedBackend(backend, RateLimiter("gpt-4o-mini", None, tokens_per_minute=100))
    started = time.monotonic()
    with pytest.raises(RateLimitError) as refused:
        limited.generate(request(prompt="x" * 400, max_tokens=50))  # 100 + 50 estimated
    assert time.monotonic() - started < 0.5
    assert backend.calls == 0
    message = str(refused.value)
    assert "gpt-4o-mini" in message and "150 tokens" in message and "tokens_per_minute=100" in message
    assert message.count(". ") == 0 and message.endswith(".")  # one sentence


def test_cache_hits_neither_wait_nor_count(tmp_path: Path) -> None:
    backend = FakeBackend()
    limiter = RateLimiter("m", requests_per_minute=1, tokens_per_minute=None, window_s=0.4)
    llm = CachedLLM(RateLimitedBackend(backend, limiter), CacheStore(tmp_path / "cache.jsonl"), "auto")
    started = time.monotonic()
    llm.generate(request("a"))
    for _ in range(50):
        assert llm.generate(request("a")).cached
    assert time.monotonic() - started < 0.2
    llm.generate(request("b"))  # the second real request of the window waits for the first to expire
    assert time.monotonic() - started >= 0.4
    assert backend.calls == 2


def test_the_backend_answer_corrects_the_charge() -> None:
    limiter = RateLimiter("m", requests_per_minute=None, tokens_per_minute=1000, window_s=60.0)
    backend = FakeBackend(Usage(prompt_tokens=7, completion_tokens=4))
    RateLimitedBackend(backend, limiter).generate(request(prompt="x" * 40, max_tokens=10))
    started = time.monotonic()
    limiter.acquire(1000 - 11)  # only the 11 tokens really used are still charged
    assert time.monotonic() - started < 0.5


def test_estimates_count_a_quarter_token_per_character_plus_max_tokens() -> None:
    assert estimate_tokens(request(prompt="x" * 41, max_tokens=10)) == 11 + 10
    chat = LLMRequest(
        kind="chat",
        messages=[ChatMessage(role="system", content="x" * 8), ChatMessage(role="user", content="y" * 4)],
        max_tokens=5,
    )
    assert estimate_tokens(chat) == 3 + 5


def api_model(name: str = "gpt-4o-mini", **limits: object) -> ModelConfig:
    return ModelConfig(name=name, backend="openai", model="gpt-4o-mini", api="chat", **limits)  # type: ignore[arg-type]


def test_one_limiter_per_api_model_and_key_at_the_strictest_limit() -> None:
    limiters = shared_limiters(
        [
            api_model(requests_per_minute=500),
            api_model(requests_per_minute=300, tokens_per_minute=20_000),
            api_model(),
            api_model(base_url="http://127.0.0.1:8000/v1", requests_per_minute=5),
            api_model(api_key_env="OTHER_KEY"),  # unlimited under its own key
            ModelConfig(name="smollm2-135m", backend="llamacpp", model="smollm2-135m"),
        ]
    )
    assert len(limiters) == 2
    shared = limiters[("openai", "gpt-4o-mini", None, "OPENAI_API_KEY")]
    assert (shared.requests_per_minute, shared.tokens_per_minute) == (300, 20_000)
    assert limiters[("openai", "gpt-4o-mini", "http://127.0.0.1:8000/v1", "OPENAI_API_KEY")].requests_per_minute == 5


def test_the_pool_shares_one_limiter_between_roles_and_configs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("harness.llm.pool.create_backend", lambda model: FakeBackend())
    run_model, swapped_copy = api_model(requests_per_minute=60), api_model(name="copy")
    pool = LLMPool(CacheStore(tmp_path / "cache.jsonl"), "replay", [run_model, swapped_copy])
    backends = [pool.get(role, model).backend for role in ("actor", "reflector") for model in (run_model, swapped_copy)]
    assert all(isinstance(b, RateLimitedBackend) for b in backends)
    assert len({id(b.limiter) for b in backends}) == 1  # type: ignore[attr-defined]
    assert pool.get("actor", run_model).identity == FakeBackend.identity  # the limiter leaves cache keys alone


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValidationError):
        api_model(requests_per_minute=0)
    with pytest.raises(ValidationError):
        api_model(tokens_per_minute=-1)
