"""A test instrument: an OpenAI-compatible HTTP server that answers from a recorded cache and injects faults.

It is benchmarks/recorded_server.py's server (POST /v1/completions, POST /v1/chat/completions and GET
/v1/models on a free port of 127.0.0.1, answers matched by request content from a harness cache file, a 400
for a request with no recorded answer) with faults put in front of the recorded answers.

Faults are scheduled by the test: a queue consumed one per model request (`None` answers normally), and
optionally one fault for every request from some number on. Nothing here is part of the harness.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from benchmarks.recorded_server import Answer, RecordedHandler, RecordedServer, completion_body, content_key

FaultKind = Literal[
    "status", "timeout", "drop", "malformed_json", "empty_choices", "truncated", "trickle",
    "non_utf8", "html", "null_text", "negative_usage", "oversized", "no_usage", "deep_json", "lone_surrogate",
    "huge_usage",
]  # fmt: skip


@dataclass(frozen=True)
class Fault:
    """One way to fail a request.

    status: an HTTP error `status`, with a Retry-After header of `retry_after` seconds if set;
    timeout: no answer for `stall_s` seconds (longer than the client's timeout), then a hang-up;
    drop: close the connection without any response; malformed_json: 200 with a body cut mid-JSON;
    empty_choices: 200 with a well-formed body whose `choices` list is empty;
    truncated: 200 whose Content-Length promises the whole answer, then half of it and a hang-up;
    trickle: the whole answer, status line and headers included, one byte every `stall_s` seconds (a slow
    server, or one that keeps a connection open on purpose: no single read ever waits long);
    non_utf8: 200 whose JSON body holds bytes that are no UTF-8; html: 200 with a proxy's HTML page (text/html);
    null_text: 200 whose answer text is null; negative_usage: 200 counting -3 prompt tokens;
    oversized: 200 whose answer is `size` characters, whatever max_tokens asked for;
    no_usage: the recorded answer without token counts (no fault: a server that counts none);
    deep_json: 200 whose JSON body nests 100,000 lists deep; lone_surrogate: 200 whose answer text is an escaped
    lone surrogate, "\\udfff" (what a server cutting an emoji in half sends); huge_usage: 200 counting 10**30
    prompt tokens.
    """

    kind: FaultKind
    status: int = 503
    retry_after: float | None = None
    stall_s: float = 2.0
    size: int = 880_000

    @classmethod
    def http(cls, status: int, retry_after: float | None = None) -> Fault:
        return cls("status", status=status, retry_after=retry_after)

    def __str__(self) -> str:
        if self.kind != "status":
            return self.kind
        return f"{self.status}" + (f" Retry-After {self.retry_after:g}" if self.retry_after is not None else "")


class _FaultHandler(RecordedHandler):
    owner: FaultServer  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        fault = self.owner.next_fault(self.path)
        answer = self.owner.answers.get(content_key(payload))
        if fault is None:
            self.send_answer(payload, answer)
        else:
            self._inject(fault, payload, answer)

    def _inject(self, fault: Fault, payload: dict[str, Any], answer: Answer | None) -> None:
        if fault.kind == "status":
            headers = {} if fault.retry_after is None else {"Retry-After": f"{fault.retry_after:g}"}
            self.send_json(fault.status, {"error": {"message": f"injected {fault.status}"}}, headers)
            return
        if fault.kind == "empty_choices":
            self.send_json(200, completion_body(self.path, payload, None))
            return
        if fault.kind in _BROKEN_BODIES:
            self.send_json(200, _BROKEN_BODIES[fault.kind](completion_body(self.path, payload, answer), fault))
            return
        if fault.kind == "deep_json":
            self.send_json(200, b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
            return
        if fault.kind == "html":
            page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            self.write_head(200, len(page), {"Content-Type": "text/html"})
            self.write(page)
            return
        self.close_connection = True  # every other fault leaves the connection unusable
        if fault.kind == "timeout":
            time.sleep(fault.stall_s)
        elif fault.kind == "malformed_json":
            self.send_json(200, b'{"id": "fault-server-0", "choices": [{"text": "unterminat')
        elif fault.kind == "trickle":
            body = json.dumps(completion_body(self.path, payload, answer)).encode()
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            for byte in head.encode() + body:
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    break  # the client gave up
                time.sleep(fault.stall_s)
        elif fault.kind == "truncated":
            body = json.dumps(completion_body(self.path, payload, answer)).encode()
            self.write_head(200, len(body), {})
            self.write(body[: len(body) // 2])
        # "drop" (and a stalled "timeout") send nothing: returning closes the socket.


def _choice_text(body: dict[str, Any], text: Any) -> dict[str, Any]:
    """`body` (an answer as the server sends it) with its first choice's text replaced."""
    choice = body["choices"][0]
    if "message" in choice:
        choice["message"]["content"] = text
    else:
        choice["text"] = text
    return body


def _non_utf8(body: dict[str, Any], fault: Fault) -> bytes:
    # Latin-1 "café" inside the JSON string: a byte no UTF-8 sequence starts with.
    return json.dumps(_choice_text(body, "caf@")).encode().replace(b"@", b"\xe9")


def _negative_usage(body: dict[str, Any], fault: Fault) -> dict[str, Any]:
    body["usage"]["prompt_tokens"] = -3
    return body


def _no_usage(body: dict[str, Any], fault: Fault) -> dict[str, Any]:
    del body["usage"]
    return body


_BROKEN_BODIES = {
    "non_utf8": _non_utf8,
    "null_text": lambda body, fault: _choice_text(body, None),
    "negative_usage": _negative_usage,
    "oversized": lambda body, fault: _choice_text(body, "Reflection: " + "x" * (fault.size - len("Reflection: "))),
    "no_usage": _no_usage,
    "lone_surrogate": lambda body, fault: _choice_text(body, "half an emoji: \udfff"),
    "huge_usage": lambda body, fault: {**body, "usage": {**body["usage"], "prompt_tokens": 10**30}},
}


class FaultServer(RecordedServer):
    """The server, as a context manager: `with FaultServer(cache) as server: ... server.base_url ...`."""

    handler = _FaultHandler

    def __init__(self, cache_path: Path, faults: Sequence[Fault | None] = ()) -> None:
        super().__init__(cache_path)
        self.requests = 0  # model requests received, faulted or not
        self.injected: list[Fault] = []
        self.arrivals: list[float] = []  # time.monotonic() of each model request
        self.paths: list[str] = []
        self._queue: list[Fault | None] = list(faults)
        self._from: tuple[int, Fault] | None = None
        self._lock = threading.Lock()

    def schedule(self, faults: Sequence[Fault | None]) -> None:
        """Replace the queue: the next requests get these faults in order (None: a normal answer)."""
        with self._lock:
            self._queue = list(faults)

    def fail_from(self, request_number: int, fault: Fault) -> None:
        """Answer every request numbered `request_number` (1-based, counted from the start) or later with `fault`."""
        with self._lock:
            self._from = (request_number, fault)

    def heal(self) -> None:
        """No more faults: empty the queue and drop the persistent rule."""
        with self._lock:
            self._queue, self._from = [], None

    def next_fault(self, path: str) -> Fault | None:
        """Count a model request to `path` and take the fault it gets, if any."""
        with self._lock:
            self.requests += 1
            self.arrivals.append(time.monotonic())
            self.paths.append(path)
            fault = self._queue.pop(0) if self._queue else None
            if fault is None and self._from is not None and self.requests >= self._from[0]:
                fault = self._from[1]
            if fault is not None:
                self.injected.append(fault)
            return fault
