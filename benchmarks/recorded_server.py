"""An OpenAI-compatible HTTP server that answers from a recorded harness cache: the part shared by the
benchmarks' latency server and the tests' fault server.

It serves POST /v1/completions, POST /v1/chat/completions and GET /v1/models on 127.0.0.1 from a background
thread, one thread per connection, so concurrent requests overlap. Answers come from one of the harness's
JSONL cache files (`.jsonl`, or `.jsonl.gz` for a committed fixture), matched by what a request asks for
(prompt or messages, max_tokens, temperature, stop, seed), not by the cache key, whose backend identity
differs from whatever identity the client has. A request with no recorded answer gets a 400 naming the
problem, so a mismatch fails fast instead of being retried. Subclasses change how a request is answered
(`RecordedHandler.respond`). Nothing here is part of the harness.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar, TypeVar

MODEL_PATHS = ("/v1/completions", "/v1/chat/completions")
Server = TypeVar("Server", bound="RecordedServer")
Answer = dict[str, Any]  # a cache line's `response`: {text, usage: {prompt_tokens, completion_tokens}, ...}


def content_key(payload: dict[str, Any]) -> str:
    """What determines the answer, in one canonical string; a chat request is keyed by its messages."""
    messages = payload.get("messages")
    return json.dumps(
        {
            "prompt": payload.get("prompt") if messages is None else None,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages] if messages else None,
            "max_tokens": payload.get("max_tokens"),
            "temperature": float(payload.get("temperature") or 0.0),
            "stop": list(payload.get("stop") or []),  # the client leaves out an empty stop list
            "seed": payload.get("seed"),
        },
        sort_keys=True,
    )


def load_answers(cache_path: Path) -> dict[str, Answer]:
    """Recorded responses by request content; later lines win, as in the cache itself."""
    opener = gzip.open if cache_path.suffix == ".gz" else open
    answers: dict[str, Answer] = {}
    with opener(cache_path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                entry = json.loads(line)
                answers[content_key(entry["request"])] = entry["response"]
    return answers


def completion_body(path: str, payload: dict[str, Any], answer: Answer | None) -> dict[str, Any]:
    """An OpenAI-shaped answer for `path`; `answer` None gives the same shape with no choices.

    The served model, system fingerprint and finish reason are the recorded answer's where it has them (a cache
    written by the openai backend); otherwise the model asked for, no fingerprint, and "stop".
    """
    chat = path.endswith("/chat/completions")
    answer = answer or {}
    choices = []
    if "text" in answer:
        text = answer["text"]
        choice = {"message": {"role": "assistant", "content": text}} if chat else {"text": text, "logprobs": None}
        choices.append({"index": 0, "finish_reason": answer.get("finish_reason") or "stop", **choice})
    usage = answer.get("usage") or {"prompt_tokens": 0, "completion_tokens": 0}
    body = {
        "id": "recorded-0",
        "object": "chat.completion" if chat else "text_completion",
        "created": int(time.time()),
        "model": answer.get("served_model") or payload.get("model", "unknown"),
        "choices": choices,
        "usage": {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]},
    }
    if answer.get("system_fingerprint"):
        body["system_fingerprint"] = answer["system_fingerprint"]
    return body


class RecordedHandler(BaseHTTPRequestHandler):
    """Routing, parsing and safe writing; `respond` decides what a model request gets."""

    protocol_version = "HTTP/1.1"  # keep-alive, like real API servers
    # TCP_NODELAY, as real API servers set it: headers and body go out as two writes, and with Nagle's algorithm
    # the body waits for the client's delayed ACK of the headers, 40 ms a request on Linux.
    disable_nagle_algorithm = True
    server: _HTTPServer

    @property
    def owner(self) -> RecordedServer:
        """The RecordedServer this request came to."""
        return self.server.owner

    def respond(self, payload: dict[str, Any]) -> None:
        """Answer one model request: the recorded answer, or a 400 when there is none."""
        self.send_answer(payload, self.owner.answers.get(content_key(payload)))

    def send_answer(self, payload: dict[str, Any], answer: Answer | None) -> None:
        """A 200 with `answer`, or the 400 that names a request with no recorded answer."""
        if answer is None:
            message = (
                f"no recorded answer for this request in {self.owner.cache_path.name} "
                "(matched by prompt or messages, max_tokens, temperature, stop and seed)"
            )
            self.send_json(400, {"error": {"message": message, "type": "invalid_request_error"}})
        else:
            self.send_json(200, completion_body(self.path, payload, answer))

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self.send_json(200, {"object": "list", "data": [{"id": "recorded", "object": "model"}]})
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path in MODEL_PATHS:
            self.respond(payload)
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        """Send a JSON body (or raw bytes, as they are) with its status and headers."""
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.write_head(status, len(body), headers or {})
        self.write(body)

    def write_head(self, status: int, length: int, headers: dict[str, str]) -> None:
        """Status line and headers (Content-Type application/json unless `headers` give one); a client that already
        hung up is not an error here."""
        try:
            self.send_response(status)
            self.send_header("Content-Length", str(length))
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def write(self, data: bytes) -> None:
        """Body bytes; a client that already hung up is not an error here."""
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up first, e.g. after its timeout

    def log_message(self, *args: object) -> None:  # one line per request would drown the caller's output
        pass


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # a stalled reply must not hold up shutdown
    # The default backlog of 5 drops connection bursts (16 clients at once), and a dropped SYN costs a
    # client a full second before it tries again.
    request_queue_size = 128

    def __init__(self, port: int, handler: type[RecordedHandler], owner: RecordedServer) -> None:
        super().__init__(("127.0.0.1", port), handler)
        self.owner = owner


class RecordedServer:
    """The server, as a context manager: `with RecordedServer(cache) as server: ... server.base_url ...`."""

    handler: ClassVar[type[RecordedHandler]] = RecordedHandler

    def __init__(self, cache_path: Path | None, port: int = 0) -> None:
        """port 0 takes a free one; no cache_path: no recorded answers (a subclass answers otherwise)."""
        self.cache_path = Path(cache_path) if cache_path is not None else Path("no-cache")
        self.answers = load_answers(self.cache_path) if cache_path is not None else {}
        self._http = _HTTPServer(port, self.handler, self)
        self.port = self._http.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        # A short poll keeps shutdown quick: the default 0.5 s would add that much to every test.
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self: Server) -> Server:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._http.shutdown()
        self._http.server_close()
