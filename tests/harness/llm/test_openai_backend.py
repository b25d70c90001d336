"""The openai backend over real HTTP against a llama.cpp server, with a fault-injecting proxy in front."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from harness.errors import LLMError, LLMRequestError, MissingAPIKeyError
from harness.llm import ChatMessage, LLMRequest, ModelConfig, create_backend

pytestmark = pytest.mark.slow

# A llama_cpp.server with one model answers whatever model name is asked for.
SERVER_MODEL = "smollm2-135m"


class Fault:
    """One canned answer the proxy gives instead of forwarding."""

    def __init__(self, status: int, headers: dict[str, str] | None = None, stall_s: float = 0.0) -> None:
        self.status = status
        self.headers = headers or {}
        self.stall_s = stall_s


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 that answers the first requests with faults and forwards the rest upstream."""

    def __init__(self, upstream: str, faults: list[Fault]) -> None:
        self.upstream = upstream.rstrip("/")
        self.faults = list(faults)
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next_fault(self, path: str) -> Fault | None:
        with self._lock:
            self.paths.append(path)
            return self.faults.pop(0) if self.faults else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fault = proxy._next_fault(self.path)
                if fault is not None:
                    time.sleep(fault.stall_s)
                    self._reply(fault.status, fault.headers, {"error": {"message": f"injected {fault.status}"}})
                    return
                upstream = urllib.request.Request(
                    proxy.upstream + self.path.removeprefix("/v1"),
                    data=body,
                    headers={"Content-Type": "application/json"},
                )
                try:
                    with urllib.request.urlopen(upstream, timeout=60) as answer:
                        self._reply(answer.status, {}, json.loads(answer.read()))
                except urllib.error.HTTPError as refused:
                    self._reply(refused.code, {}, json.loads(refused.read()))

            def _reply(self, status: int, headers: dict[str, str], payload: Any) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and hung up, as the timeout test intends

            def log_message(self, *args: object) -> None:  # keep pytest output clean
                pass

        return Handler


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLAMA_KEY", "none")  # llama_cpp.server accepts any key


def config(base_url: str, **overrides: Any) -> ModelConfig:
    fields: dict[str, Any] = {
        "name": "smollm2-over-http",
        "backend": "openai",
        "model": SERVER_MODEL,
        "base_url": base_url,
        "api_key_env": "TEST_LLAMA_KEY",
        "timeout_s": 30.0,
        "max_retries": 3,
        "retry_max_wait_s": 0.2,
    }
    return ModelConfig(**(fields | overrides))


COMPLETION = LLMRequest(kind="completion", prompt="The capital of France is", max_tokens=8, stop=["\n"])
CHAT = LLMRequest(kind="chat", messages=[ChatMessage(role="user", content="Say hello.")], max_tokens=8)


@pytest.fixture
def proxy(llama_server: str, request: pytest.FixtureRequest) -> Iterator[FaultProxy]:
    with FaultProxy(llama_server, getattr(request, "param", [])) as running:
        yield running


@pytest.mark.usefixtures("api_key")
def test_completion_over_http(proxy: FaultProxy) -> None:
    response = create_backend(config(proxy.base_url)).generate(COMPLETION)
    assert response.text.strip() and "\n" not in response.text
    assert response.usage.prompt_tokens > 0 and 0 < response.usage.completion_tokens <= 8
    assert response.latency_s > 0 and not response.cached
    assert proxy.paths == ["/v1/completions"]


@pytest.mark.usefixtures("api_key")
def test_chat_over_http(proxy: FaultProxy) -> None:
    response = create_backend(config(proxy.base_url)).generate(CHAT)
    assert response.text.strip() and response.usage.completion_tokens > 0
    assert proxy.paths == ["/v1/chat/completions"]


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("request_", [COMPLETION, CHAT], ids=["completion", "chat"])
def test_an_answer_says_what_served_it_and_why_it_ended(proxy: FaultProxy, request_: LLMRequest) -> None:
    backend = create_backend(config(proxy.base_url))
    cut = backend.generate(request_.model_copy(update={"max_tokens": 2}))
    assert (cut.served_model, cut.system_fingerprint) == (SERVER_MODEL, None)  # the answer's `model`; no fingerprint
    assert cut.finish_reason == "length"
    assert backend.generate(request_.model_copy(update={"max_tokens": 64})).finish_reason == "stop"


@pytest.mark.usefixtures("api_key")
def test_chat_api_sends_a_completion_as_one_user_message(proxy: FaultProxy) -> None:
    response = create_backend(config(proxy.base_url, api="chat")).generate(COMPLETION)
    assert response.text.strip()
    assert proxy.paths == ["/v1/chat/completions"]


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("proxy", [[Fault(503)]], indirect=True)
def test_a_503_is_retried(proxy: FaultProxy) -> None:
    assert create_backend(config(proxy.base_url)).generate(COMPLETION).text.strip()
    assert proxy.paths == ["/v1/completions"] * 2


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("proxy", [[Fault(429, {"Retry-After": "1"})]], indirect=True)
def test_a_429_waits_at_least_retry_after(proxy: FaultProxy) -> None:
    backend = create_backend(config(proxy.base_url, retry_max_wait_s=5.0))
    started = time.monotonic()
    assert backend.generate(COMPLETION).text.strip()
    assert time.monotonic() - started >= 1.0
    assert len(proxy.paths) == 2


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("proxy", [[Fault(200, stall_s=3.0)]], indirect=True)
def test_a_timeout_is_retried(proxy: FaultProxy) -> None:
    assert create_backend(config(proxy.base_url, timeout_s=1.0)).generate(COMPLETION).text.strip()
    assert len(proxy.paths) == 2


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("proxy", [[Fault(503)] * 3], indirect=True)
def test_retries_run_out(proxy: FaultProxy) -> None:
    with pytest.raises(LLMError, match="after 3 attempts"):
        create_backend(config(proxy.base_url, max_retries=2)).generate(COMPLETION)
    assert len(proxy.paths) == 3


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_a_refused_request_fails_at_once(llama_server: str, status: int) -> None:
    with FaultProxy(llama_server, [Fault(status)]) as proxy:
        started = time.monotonic()
        with pytest.raises(LLMRequestError) as caught:
            create_backend(config(proxy.base_url, retry_max_wait_s=5.0)).generate(COMPLETION)
        assert time.monotonic() - started < 1.0
        assert len(proxy.paths) == 1
    message = str(caught.value)
    assert f"HTTP {status}" in message and SERVER_MODEL in message and proxy.base_url in message
    assert "Check" in message


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEST_LLAMA_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="TEST_LLAMA_KEY") as caught:
        create_backend(config("http://127.0.0.1:9/v1"))
    assert "TEST_LLAMA_KEY=none" in str(caught.value)
