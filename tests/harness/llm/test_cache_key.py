"""Cache keys: stable across processes and releases, and sensitive to everything that changes an output."""

from __future__ import annotations

import pytest

from harness.llm import ChatMessage, LLMRequest, ModelConfig, cache_key, create_backend

IDENTITY = "llamacpp:smollm2-135m:sha256=abc"


def chat(*contents: str, **fields: object) -> LLMRequest:
    return LLMRequest(kind="chat", messages=[ChatMessage(role="user", content=c) for c in contents], **fields)


def test_key_is_pinned() -> None:
    # Committed caches are looked up by this key: a change here orphans every recorded response.
    request = LLMRequest(kind="completion", prompt="> look\n", stop=["\n"], seed=3)
    assert cache_key(IDENTITY, request) == "b0f6de82bde8ff24d9c8d06369a74ed1c077552329314f23aa640a12f204c924"


def test_key_is_stable_for_equal_requests() -> None:
    first = chat("hello", temperature=0.0)
    second = LLMRequest.model_validate(first.model_dump())
    assert cache_key(IDENTITY, first) == cache_key(IDENTITY, second)
    # An int temperature validates to the same float, so it must not split the cache.
    assert cache_key(IDENTITY, chat("hello", temperature=0)) == cache_key(IDENTITY, first)


@pytest.mark.parametrize(
    "changed",
    [
        chat("hello", temperature=0.2),
        chat("hello", seed=1),
        chat("hello", max_tokens=255),
        chat("hello", stop=["\n"]),
        chat("hello!"),
        chat("hello", "again"),
        LLMRequest(kind="chat", messages=[ChatMessage(role="system", content="hello")]),
        LLMRequest(kind="completion", prompt="hello"),
    ],
)
def test_key_changes_with_any_output_relevant_field(changed: LLMRequest) -> None:
    assert cache_key(IDENTITY, changed) != cache_key(IDENTITY, chat("hello"))


def test_key_changes_with_identity() -> None:
    request = chat("hello")
    assert cache_key(IDENTITY, request) != cache_key("llamacpp:smollm2-135m:sha256=abd", request)


def test_url_and_api_key_stay_out_of_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEY_A", "sk-secret-a")
    monkeypatch.setenv("KEY_B", "sk-secret-b")
    common = {"name": "m", "backend": "openai", "model": "gpt-4o-mini"}
    a = create_backend(ModelConfig(**common, base_url="http://127.0.0.1:1/v1", api_key_env="KEY_A"))
    b = create_backend(ModelConfig(**common, base_url="http://127.0.0.1:2/v1", api_key_env="KEY_B"))
    assert a.identity == b.identity
    assert "secret" not in a.identity and "127.0.0.1" not in a.identity
    assert cache_key(a.identity, chat("hello")) == cache_key(b.identity, chat("hello"))


def test_request_payload_must_match_kind() -> None:
    with pytest.raises(ValueError, match="completion request needs"):
        LLMRequest(kind="completion", messages=[ChatMessage(role="user", content="x")])
    with pytest.raises(ValueError, match="chat request needs"):
        LLMRequest(kind="chat", prompt="x")
