"""A test instrument: an OpenAI-compatible HTTP server that answers from a script and logs every request.

It is benchmarks/recorded_server.py's server (POST /v1/completions, POST /v1/chat/completions, GET /v1/models on
a free port of 127.0.0.1) answering the n-th model request with the n-th scripted answer, whatever it asks, and
keeping every request body as JSON, in arrival order. A request past the end of the script gets a 400, so a run
that asks more than the script foresaw fails at once. Nothing here is part of the harness.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from benchmarks.recorded_server import RecordedHandler, RecordedServer


class _ScriptedHandler(RecordedHandler):
    owner: ScriptedServer  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        answer = self.owner.take(payload)
        if answer is None:
            message = f"the script has {len(self.owner.script)} answers and this is request {len(self.owner.requests)}"
            self.send_json(400, {"error": {"message": message, "type": "invalid_request_error"}})
        else:
            self.send_answer(payload, {"text": answer, "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


class ScriptedServer(RecordedServer):
    """`with ScriptedServer(["answer 1", ...]) as server:` ... `server.requests` (bodies, in arrival order)."""

    handler = _ScriptedHandler

    def __init__(self, script: Sequence[str], port: int = 0) -> None:
        super().__init__(None, port)
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def take(self, payload: dict[str, Any]) -> str | None:
        """Log the request; its scripted answer, or None past the end of the script."""
        with self._lock:
            self.requests.append(payload)
            index = len(self.requests) - 1
            return self.script[index] if index < len(self.script) else None
