"""A test instrument: an OpenAI-compatible HTTP server whose every answer differs, as a sampling API's may.

It is benchmarks/recorded_server.py's server (POST /v1/completions, POST /v1/chat/completions, GET /v1/models on a
free port of 127.0.0.1, one thread per connection) answering the n-th model request, whatever it asks, with
`template` formatted with n, after `delay_s` seconds, so that requests sent at the same moment are in flight
together. Two requests with the same content that reach it get two different answers: a client that asks twice for
one cache key shows it in its records. It counts the requests of each content (prompt or messages, max_tokens,
temperature, stop, seed). Nothing here is part of the harness.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from benchmarks.recorded_server import RecordedHandler, RecordedServer, content_key


class _VaryingHandler(RecordedHandler):
    owner: VaryingServer  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        text = self.owner.take(payload)
        time.sleep(self.owner.delay_s)
        self.send_answer(payload, {"text": text, "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


class VaryingServer(RecordedServer):
    """`with VaryingServer("Finish[answer {n}]", delay_s=0.3) as server:` ... `server.asked` (requests by content)."""

    handler = _VaryingHandler

    def __init__(self, template: str = "answer {n}", delay_s: float = 0.3, port: int = 0) -> None:
        super().__init__(None, port)
        self.template = template
        self.delay_s = delay_s
        self.asked: Counter[str] = Counter()
        """How many times each request content was asked (benchmarks.recorded_server.content_key)."""
        self._lock = threading.Lock()

    @property
    def requests(self) -> int:
        """Model requests received."""
        with self._lock:
            return sum(self.asked.values())

    def take(self, payload: dict[str, Any]) -> str:
        """Count the request; the answer it gets, numbered in arrival order from 1."""
        with self._lock:
            self.asked[content_key(payload)] += 1
            return self.template.format(n=sum(self.asked.values()))
