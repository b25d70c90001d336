"""A deadline on one whole HTTP attempt of the openai backend.

httpx's timeouts, which the SDK's `timeout` sets, bound each connect, read and write, never their sum (a known
limit: encode/httpx#1450): a server that sends one byte a second keeps an attempt open as long as it likes. Here
the SDK's HTTP client gets a network backend whose sockets consult the calling thread's deadline, so within
`AttemptDeadline.attempt(seconds)` no connect, read or write waits past it, headers included.

The SDK is built on httpx2 since openai 3 and on httpx before; the backend is made for the one it uses. A
proxy taken from the environment (HTTPS_PROXY, ...) gets its own transport from httpx, without the deadline.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from types import ModuleType
from typing import Any

import openai


def _http_libraries() -> tuple[ModuleType, ModuleType]:
    """The HTTP client library of the installed openai SDK and the connection library under it."""
    client = next(c for c in openai.DefaultHttpxClient.__mro__ if c.__name__ == "Client")
    name = client.__module__.split(".")[0]  # httpx2 or httpx
    return importlib.import_module(name), importlib.import_module(name.replace("httpx", "httpcore"))


_httpx, _httpcore = _http_libraries()


class AttemptDeadline(_httpcore.NetworkBackend):  # type: ignore[name-defined]  # the SDK's library, found at import
    """A network backend that holds every socket operation of the calling thread to that thread's deadline."""

    def __init__(self) -> None:
        self._sockets = _httpcore.SyncBackend()
        self._local = threading.local()

    @contextmanager
    def attempt(self, seconds: float) -> Iterator[None]:
        """Within this block, the calling thread's connects, reads and writes end `seconds` from now at the latest."""
        self._local.deadline = time.monotonic() + seconds
        try:
            yield
        finally:
            self._local.deadline = None

    def bound(self, timeout: float | None, expired: type[Exception]) -> float | None:
        """The time one operation may wait: its own timeout, cut to what is left; `expired` once nothing is."""
        deadline = getattr(self._local, "deadline", None)
        if deadline is None:
            return timeout
        left = deadline - time.monotonic()
        if left <= 0:
            raise expired("the attempt used up model.timeout_s")
        return left if timeout is None else min(timeout, left)

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> Any:
        bounded = self.bound(timeout, _httpcore.ConnectTimeout)
        return _BoundStream(self._sockets.connect_tcp(host, port, bounded, local_address, socket_options), self)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> Any:
        bounded = self.bound(timeout, _httpcore.ConnectTimeout)
        return _BoundStream(self._sockets.connect_unix_socket(path, bounded, socket_options), self)

    def sleep(self, seconds: float) -> None:
        self._sockets.sleep(seconds)


class _BoundStream(_httpcore.NetworkStream):  # type: ignore[name-defined]  # the SDK's library, found at import
    """A connection whose every read and write waits at most what is left of the attempt."""

    def __init__(self, stream: Any, deadline: AttemptDeadline) -> None:
        self._stream = stream
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._deadline.bound(timeout, _httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._deadline.bound(timeout, _httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        bounded = self._deadline.bound(timeout, _httpcore.ConnectTimeout)
        return _BoundStream(self._stream.start_tls(ssl_context, server_hostname, bounded), self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


@cache
def _tls() -> Any:
    """httpx's default TLS context, made once a process: each client loaded the CA bundle twice (25 ms), and one
    context serves any number of connections."""
    return _httpx.create_ssl_context()


def http_client(deadline: AttemptDeadline) -> Any:
    """The SDK's default HTTP client, its connections made through `deadline`."""
    transport = _httpx.HTTPTransport(verify=_tls())
    # httpx builds its connection pool with no way to pass a network backend, so the pool is replaced by the same
    # pool (httpx's default limits and TLS) made with one.
    transport._pool = _httpcore.ConnectionPool(
        ssl_context=_tls(),
        max_connections=100,
        max_keepalive_connections=20,
        keepalive_expiry=5.0,
        network_backend=deadline,
    )
    return openai.DefaultHttpxClient(transport=transport)
