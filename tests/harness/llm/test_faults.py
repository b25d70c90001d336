"""The openai backend against every fault the fault server injects: retried within budget, counted, explained."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.errors import LLMError, LLMRequestError
from harness.llm import (
    Backend,
    CachedLLM,
    CacheStore,
    CallContext,
    ChatMessage,
    LLMRequest,
    LLMResponse,
    ModelConfig,
    Usage,
    cache_key,
    create_backend,
)
from harness.llm.metering import MeteredLLM
from tests.harness.llm.fault_server import Fault, FaultServer

COMPLETION = LLMRequest(kind="completion", prompt="> go to desk 1\n", max_tokens=32, stop=["\n"])
CHAT = LLMRequest(kind="chat", messages=[ChatMessage(role="user", content="Say hello.")], max_tokens=8, seed=3)
COMPLETION_TEXT, CHAT_TEXT = "On the desk 1, you see a pen 2.", "Hello."
TIMEOUT_S = 0.5
BACKOFF_FLOOR_S = 1.0  # wait_exponential_jitter(initial=1) never waits less, unless the budget is smaller

FAULTS = {
    "429 Retry-After": Fault.http(429, retry_after=0.01),
    "429": Fault.http(429),
    "500": Fault.http(500),
    "502": Fault.http(502),
    "503": Fault.http(503),
    "timeout": Fault("timeout", stall_s=TIMEOUT_S + 0.5),
    "dropped connection": Fault("drop"),
    "malformed JSON": Fault("malformed_json"),
    "empty choices": Fault("empty_choices"),
    "truncated body": Fault("truncated"),
    "trickled answer": Fault("trickle", stall_s=0.05),
}
# 200s the SDK hands over as they came, each of which used to crash the run (exit 1, a traceback).
BROKEN_200S = {
    "non-UTF-8 body": (Fault("non_utf8"), "not valid JSON ('utf-8' codec can't decode byte 0xe9"),
    "HTML body": (Fault("html"), "body is not a JSON object but text starting '<html><body><h1>502 Bad Gateway"),
    "null text": (Fault("null_text"), "no completion (choices.0.text: Input should be a valid string)"),
    "negative token counts": (
        Fault("negative_usage"),
        "no completion (usage.prompt_tokens: Input should be greater than or equal to 0 (got -3))",
    ),
    "Retry-After: nan": (Fault.http(429, retry_after=float("nan")), "HTTP 429 (Retry-After nan)"),
    "JSON nested 100,000 deep": (Fault("deep_json"), "JSON body is nested deeper than the parser goes"),
    "lone surrogate": (Fault("lone_surrogate"), "text holds a lone surrogate ('\\udfff')"),
    "10**30 prompt tokens": (
        Fault("huge_usage"),
        "counting a 31-digit number of prompt tokens for a prompt of 15 bytes, more than any tokenizer makes",
    ),
}


@pytest.fixture
def recorded_cache(tmp_path: Path) -> Path:
    """A cache file in the harness's format, recorded under a backend identity no client here has."""
    store = CacheStore(tmp_path / "recorded.jsonl")
    for request, text in ((COMPLETION, COMPLETION_TEXT), (CHAT, CHAT_TEXT)):
        response = LLMResponse(text=text, usage=Usage(prompt_tokens=11, completion_tokens=7), latency_s=0.5)
        store.put(cache_key("llamacpp:some-other-model", request), response, request, "llamacpp:some-other-model")
    return store.path


@pytest.fixture
def server(recorded_cache: Path) -> Iterator[FaultServer]:
    with FaultServer(recorded_cache) as running:
        yield running


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT_SERVER_KEY", "none")


def backend(server: FaultServer, **overrides: Any) -> Backend:
    fields: dict[str, Any] = {
        "name": "over-the-fault-server",
        "backend": "openai",
        "model": "recorded-model",
        "base_url": server.base_url,
        "api_key_env": "FAULT_SERVER_KEY",
        "timeout_s": TIMEOUT_S,
        "max_retries": 3,
        "retry_max_wait_s": 0.02,
    }
    return create_backend(ModelConfig(**(fields | overrides)))


def test_without_faults_the_recorded_answer_comes_back_unretried(server: FaultServer) -> None:
    response = backend(server).generate(COMPLETION)
    assert (response.text, response.usage) == (COMPLETION_TEXT, Usage(prompt_tokens=11, completion_tokens=7))
    assert response.retries == 0 and not response.cached
    assert server.paths == ["/v1/completions"]


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_each_fault_is_retried_and_counted(server: FaultServer, fault: Fault) -> None:
    server.schedule([fault])
    response = backend(server).generate(COMPLETION)
    assert response.text == COMPLETION_TEXT
    assert response.retries == 1
    assert server.requests == 2 and server.injected == [fault]


@pytest.mark.parametrize("kind", ["malformed JSON", "empty choices", "truncated body"])
def test_a_broken_chat_answer_is_retried_too(server: FaultServer, kind: str) -> None:
    server.schedule([FAULTS[kind]])
    response = backend(server).generate(CHAT)
    assert (response.text, response.retries) == (CHAT_TEXT, 1)
    assert server.paths == ["/v1/chat/completions"] * 2


@pytest.mark.parametrize(("fault", "named"), BROKEN_200S.values(), ids=BROKEN_200S.keys())
def test_a_broken_200_answer_is_retried_not_a_crash(
    server: FaultServer, fault: Fault, named: str, caplog: pytest.LogCaptureFixture
) -> None:
    """'Broken 200 answers crash the run (exit 1, traceback) instead of being retried': non-UTF-8 bytes, an HTML
    body, null text, negative token counts, Retry-After: nan. Each is a server fault now: retried, counted, and
    named in the retry's log line."""
    server.schedule([fault])
    response = backend(server).generate(COMPLETION)
    assert (response.text, response.retries) == (COMPLETION_TEXT, 1)
    assert server.requests == 2
    assert named in caplog.text, caplog.text


def test_a_null_chat_answer_is_retried_too(server: FaultServer) -> None:
    server.schedule([Fault("null_text")])
    response = backend(server).generate(CHAT)
    assert (response.text, response.retries) == (CHAT_TEXT, 1)


@pytest.mark.parametrize(("fault", "named"), BROKEN_200S.values(), ids=BROKEN_200S.keys())
def test_a_persistently_broken_200_answer_ends_in_one_sentence(server: FaultServer, fault: Fault, named: str) -> None:
    server.fail_from(1, fault)
    with pytest.raises(LLMError) as caught:
        backend(server, max_retries=1).generate(COMPLETION)
    message = str(caught.value)
    assert "after 2 attempts" in message and named in message and "\n" not in message


def test_a_server_that_sends_no_token_counts_leaves_them_unknown_not_zero(server: FaultServer, tmp_path: Path) -> None:
    """'A server that sends no usage is recorded as 0 tokens (unknown is not 0)': the answer is used, not
    retried, and its usage counts one call whose tokens are unknown, in the cache and in a meter's sum."""
    server.schedule([Fault("no_usage")])
    llm = CachedLLM(backend(server), CacheStore(tmp_path / "cache.jsonl"), "auto")
    meter = MeteredLLM(llm, CallContext(task_id="t", trial=0, condition="c", role="actor"))
    answer = meter.generate(COMPLETION)
    assert (answer.text, answer.retries, answer.usage) == (COMPLETION_TEXT, 0, Usage(unreported_calls=1))
    meter.generate(CHAT)
    assert meter.usage == Usage(prompt_tokens=11, completion_tokens=7, unreported_calls=1)
    assert json.loads((tmp_path / "cache.jsonl").read_text().splitlines()[0])["response"]["usage"] == {
        "prompt_tokens": 0, "completion_tokens": 0, "unreported_calls": 1,
    }  # fmt: skip
    replayed = CachedLLM(backend(server), CacheStore(tmp_path / "cache.jsonl"), "replay").generate(COMPLETION)
    assert replayed.usage == Usage(unreported_calls=1)


def test_an_answer_far_over_max_tokens_is_refused_and_retried(server: FaultServer, tmp_path: Path) -> None:
    """'A bound on what a model answer may be': an 880 KB answer to a request of max_tokens=32 (a server that
    ignores max_tokens) was taken as it came, into the records and the cache. Over max_tokens x
    model.max_answer_chars_per_token characters it is a broken answer: retried, and never cached."""
    server.schedule([Fault("oversized", size=880_000)])
    llm = CachedLLM(backend(server), CacheStore(tmp_path / "cache.jsonl"), "auto")
    response = llm.generate(COMPLETION)
    assert (response.text, response.retries) == (COMPLETION_TEXT, 1)
    assert (tmp_path / "cache.jsonl").stat().st_size < 2_000


def test_a_server_that_always_ignores_max_tokens_ends_in_one_sentence_naming_the_bound(server: FaultServer) -> None:
    server.fail_from(1, Fault("oversized", size=880_000))
    with pytest.raises(LLMError) as caught:
        backend(server, max_retries=1).generate(COMPLETION)
    message = str(caught.value)
    assert "an answer of 880,000 characters to a request of max_tokens=32, over the bound of 1,024" in message
    assert "model.max_answer_chars_per_token=32" in message and "model.max_answer_chars=1,000,000" in message


def test_the_bound_is_a_setting_and_capped(server: FaultServer) -> None:
    server.schedule([Fault("oversized", size=2_000)])  # 62 characters a token of max_tokens=32
    assert backend(server, max_answer_chars_per_token=64).generate(COMPLETION).text.startswith("Reflection: xxx")
    server.schedule([Fault("oversized", size=2_000)])
    assert backend(server, max_answer_chars_per_token=64, max_answer_chars=1_999).generate(COMPLETION).retries == 1


def test_faults_in_a_row_count_one_retry_each(server: FaultServer) -> None:
    server.schedule([FAULTS["dropped connection"], FAULTS["malformed JSON"], FAULTS["502"]])
    assert backend(server).generate(COMPLETION).retries == 3
    assert server.requests == 4


def test_timeout_s_bounds_the_whole_attempt_not_each_read(server: FaultServer) -> None:
    # One byte every 0.05 s: every read returns in time, the whole answer would take over 20 s.
    server.schedule([Fault("trickle", stall_s=0.05)])
    started = time.monotonic()
    response = backend(server, timeout_s=1.0).generate(COMPLETION)
    elapsed = time.monotonic() - started
    assert (response.text, response.retries) == (COMPLETION_TEXT, 1)
    assert 1.0 <= elapsed < 2.5, f"the trickled attempt took {elapsed:.1f}s under model.timeout_s=1"


def test_retry_after_sets_the_wait(server: FaultServer) -> None:
    # The budget allows far longer sleeps, so a wait between 0.3 s and the backoff floor came from the header.
    server.schedule([Fault.http(429, retry_after=0.3)])
    assert backend(server, retry_max_wait_s=5.0).generate(COMPLETION).retries == 1
    waited = server.arrivals[1] - server.arrivals[0]
    assert 0.3 <= waited < BACKOFF_FLOOR_S


def test_a_retry_after_beyond_the_budget_is_cut_to_it(server: FaultServer) -> None:
    server.schedule([Fault.http(429, retry_after=30)])
    started = time.monotonic()
    assert backend(server, retry_max_wait_s=0.2).generate(COMPLETION).retries == 1
    assert time.monotonic() - started < 2.0


PERSISTENT = {
    "503": (Fault.http(503), "HTTP 503: injected 503"),
    "429 Retry-After": (Fault.http(429, retry_after=0.01), "HTTP 429 (Retry-After 0.01)"),
    "timeout": (Fault("timeout", stall_s=TIMEOUT_S + 0.5), f"no answer within model.timeout_s={TIMEOUT_S:g}"),
    "dropped connection": (Fault("drop"), "Server disconnected without sending a response"),
    "malformed JSON": (Fault("malformed_json"), "not valid JSON"),
    "empty choices": (Fault("empty_choices"), "empty choices list"),
    "truncated body": (Fault("truncated"), "without sending complete message body"),
    "trickled answer": (Fault("trickle", stall_s=0.05), f"no answer within model.timeout_s={TIMEOUT_S:g}"),
}


@pytest.mark.parametrize(("fault", "named"), PERSISTENT.values(), ids=PERSISTENT.keys())
def test_a_persistent_fault_exhausts_the_budget_with_one_clear_sentence(
    server: FaultServer, fault: Fault, named: str
) -> None:
    server.fail_from(1, fault)
    with pytest.raises(LLMError) as caught:
        backend(server, max_retries=2).generate(COMPLETION)
    assert server.requests == 3
    message = str(caught.value)
    assert "'recorded-model'" in message and server.base_url in message
    assert "after 3 attempts" in message and "model.max_retries=2" in message
    assert named in message
    assert message.endswith(".") and "\n" not in message


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_a_refused_request_is_not_retried(server: FaultServer, status: int) -> None:
    server.schedule([Fault.http(status)])
    with pytest.raises(LLMRequestError, match=f"HTTP {status}"):
        backend(server, retry_max_wait_s=5.0).generate(COMPLETION)
    assert server.requests == 1


def test_an_unrecorded_request_is_refused_not_retried(server: FaultServer) -> None:
    with pytest.raises(LLMRequestError, match="no recorded answer"):
        backend(server).generate(COMPLETION.model_copy(update={"seed": 99}))
    assert server.requests == 1


def test_a_cache_hit_reports_no_retries_and_the_cache_keeps_none(server: FaultServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.jsonl"
    llm = CachedLLM(backend(server), CacheStore(cache), "auto")
    server.schedule([FAULTS["500"], FAULTS["dropped connection"]])
    first = llm.generate(COMPLETION)
    assert (first.retries, first.cached) == (2, False)
    assert "retries" not in json.loads(cache.read_text())["response"]
    for store in (llm.store, CacheStore(cache)):  # the writer's memory and a fresh reader agree
        hit = CachedLLM(backend(server), store, "replay").generate(COMPLETION)
        assert (hit.retries, hit.cached, hit.text) == (0, True, first.text)
    assert server.requests == 3


def test_a_meter_sums_the_retries_of_its_calls(server: FaultServer, tmp_path: Path) -> None:
    llm = CachedLLM(backend(server), CacheStore(tmp_path / "cache.jsonl"), "off")
    meter = MeteredLLM(llm, CallContext(task_id="t", trial=0, condition="c", role="actor"))
    server.schedule([FAULTS["503"], None, FAULTS["truncated body"], FAULTS["429"], None])
    meter.generate(COMPLETION)
    meter.generate(CHAT)
    meter.generate(COMPLETION)
    assert (meter.calls, meter.retries) == (3, 3)
