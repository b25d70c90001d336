"""The probe before a run: a server that answers passes, a refused key or no server is one clear error."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pydantic import ValidationError

from harness.errors import LLMRequestError, MissingAPIKeyError, ModelUnreachableError
from harness.llm import ModelConfig
from harness.llm._probe import api_key, check_reachable


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        # /deny/... refuses every key; elsewhere there is no /models route, as on some servers.
        status = 401 if self.path.startswith("/deny/") else 404
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def model(base_url: str, key_env: str = "OPENAI_API_KEY") -> ModelConfig:
    return ModelConfig(name="probe-test", backend="openai", model="m", base_url=base_url, api_key_env=key_env)


def test_a_server_that_answers_passes_even_without_a_models_route(server_url: str) -> None:
    check_reachable(model(f"{server_url}/v1"), "any-key")


def test_a_refused_key_is_named(server_url: str) -> None:
    with pytest.raises(LLMRequestError, match="HTTP 401 .* environment variable HARNESS_PROBE_KEY"):
        check_reachable(model(f"{server_url}/deny/v1", "HARNESS_PROBE_KEY"), "wrong-key")


def test_no_server_is_named_with_the_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(ModelUnreachableError, match=f"GET {url}/models failed"):
        check_reachable(model(url), "any-key")


def test_a_base_url_without_scheme_is_refused_by_the_config() -> None:
    for url in ("localhost:8000/v1", "not-a-url"):
        with pytest.raises(ValidationError, match="starts with http:// or https://"):
            model(url)
    for url in ("http://127.0.0.1:8000/v2", "http://127.0.0.1:8000/"):
        with pytest.raises(ValidationError, match="ends in /v1; this one does not end in /v1"):
            model(url)


@pytest.mark.parametrize("url", ["localhost:8000/v1", "not-a-url"])
def test_an_openai_base_url_without_scheme_from_the_environment_is_named(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(ModelUnreachableError, match=f"GET {url}/models failed"):
        check_reachable(ModelConfig(name="probe", backend="openai", model="probe-model"), "any-key")


def test_an_unset_key_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HARNESS_PROBE_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="HARNESS_PROBE_KEY is not set"):
        api_key(model("http://127.0.0.1:1/v1", "HARNESS_PROBE_KEY"))



def _serve(status: int, headers: dict[str, str], seen: list[str | None]) -> ThreadingHTTPServer:
    """A server answering every GET with `status` and `headers`, noting each request's Authorization header."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization"))
            self.send_response(status)
            for name, value in {**headers, "Content-Length": "0"}.items():
                self.send_header(name, value)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    return server


def test_a_redirect_is_an_answer_and_the_key_goes_to_no_other_server() -> None:
    """'The reachability probe sends the API key to whatever host a redirect names': a server answering GET
    /v1/models with 302 to another server (http, another port) made urllib send it `Authorization: Bearer <key>`."""
    stolen: list[str | None] = []
    other = _serve(200, {}, stolen)
    redirecting = _serve(302, {"Location": f"http://127.0.0.1:{other.server_address[1]}/steal"}, [])
    try:
        check_reachable(model(f"http://127.0.0.1:{redirecting.server_address[1]}/v1"), "sk-redirect-canary")
    finally:
        for server in (redirecting, other):
            server.shutdown()
            server.server_close()
    assert stolen == []
