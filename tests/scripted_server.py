"""A test instrument: an OpenAI-compatible HTTP server that answers from a script and logs every request.

It is benchmarks/recorded_server.py's server (POST /v1/completions, POST /v1/chat/completions, GET /v1/models on
a free port of 127.0.0.1) answering the n-th model request with the n-th scripted answer, whatever it asks, and
keeping every request body as JSON, in arrival order, and the path of every GET (the harness's probes). A request past the end of the script gets a 400, so a run
that asks more than the script foresaw fails at once. A scripted answer is its text, or a ScriptedAnswer that also
says which model served it, its system fingerprint and its finish reason (a drifting API). Nothing here is part
of the harness.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.recorded_server import RecordedHandler, RecordedServer


@dataclass(frozen=True)
class ScriptedAnswer:
    """One scripted answer with what the server says about itself; None leaves the recorded server's default."""

    text: str
    served_model: str | None = None
    system_fingerprint: str | None = None
    finish_reason: str | None = None

    def as_answer(self) -> dict[str, Any]:
        said = {"served_model": self.served_model, "system_fingerprint": self.system_fingerprint}
        said["finish_reason"] = self.finish_reason
        return {"text": self.text, "usage": {"prompt_tokens": 1, "completion_tokens": 1}, **said}


class _ScriptedHandler(RecordedHandler):
    owner: ScriptedServer  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        answer = self.owner.take(payload)
        if answer is None:
            message = f"the script has {len(self.owner.script)} answers and this is request {len(self.owner.requests)}"
            self.send_json(400, {"error": {"message": message, "type": "invalid_request_error"}})
        else:
            self.send_answer(payload, answer.as_answer())

    def do_GET(self) -> None:
        with self.owner._lock:
            self.owner.gets.append(self.path)
        super().do_GET()


class ScriptedServer(RecordedServer):
    """`with ScriptedServer(["answer 1", ...]) as server:` ... `server.requests` (bodies, in arrival order)."""

    handler = _ScriptedHandler

    def __init__(self, script: Sequence[str | ScriptedAnswer], port: int = 0) -> None:
        super().__init__(None, port)
        self.script = [answer if isinstance(answer, ScriptedAnswer) else ScriptedAnswer(answer) for answer in script]
        self.requests: list[dict[str, Any]] = []
        self.gets: list[str] = []
        """The path of every GET, in arrival order: the harness's reachability probes ask for /v1/models."""
        self._lock = threading.Lock()

    def take(self, payload: dict[str, Any]) -> ScriptedAnswer | None:
        """Log the request; its scripted answer, or None past the end of the script."""
        with self._lock:
            self.requests.append(payload)
            index = len(self.requests) - 1
            return self.script[index] if index < len(self.script) else None
