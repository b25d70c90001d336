"""A benchmark instrument, not part of the harness: an OpenAI-compatible server that replays a recorded
harness cache after a fixed delay per call, standing in for a remote model with a known latency.

    python -m benchmarks.latency_server (--cache FILE | --scripted) [--delay-ms 500] [--port 8000]

Every model request (POST /v1/completions or /v1/chat/completions) sleeps `--delay-ms`, then gets the
answer recorded for the same content (prompt or messages, max_tokens, temperature, stop, seed; the
model name and the cache key are ignored); an unrecorded request gets a 400 at once. `--scripted` answers every
request by benchmarks/scripted_walker.py instead (an ALFWorld walk of any length, no recording). Requests are served
by one thread each, so concurrent calls overlap and N calls in flight cost one delay, not N. Point the
harness at it with `model=openai-compatible model.base_url=http://127.0.0.1:PORT/v1 llm.cache.mode=off`
and any value in OPENAI_API_KEY. In Python: `with LatencyServer(cache, delay_s=0.5) as server: ...`.
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.recorded_server import Answer, RecordedHandler, RecordedServer, content_key
from benchmarks.scripted_walker import walker_action


class _DelayedHandler(RecordedHandler):
    owner: LatencyServer  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        answer = scripted_answer(payload) if self.owner.scripted else self.owner.answers.get(content_key(payload))
        self.owner.wait(recorded=answer is not None)
        self.send_answer(payload, answer)


def scripted_answer(payload: dict[str, Any]) -> Answer:
    """The scripted walker's action for a completion's prompt (or a chat's last message), with rough token counts."""
    messages = payload.get("messages")
    prompt = str(messages[-1]["content"] if messages else payload.get("prompt") or "")
    text = walker_action(prompt)
    return {"text": text, "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(text) // 4 + 1}}


class LatencyServer(RecordedServer):
    """Recorded answers (or, with no cache, the scripted walker's) after `delay_s` seconds each; counts what it
    served and the most calls in flight."""

    handler = _DelayedHandler

    def __init__(self, cache_path: Path | None, delay_s: float = 0.5, port: int = 0) -> None:
        super().__init__(cache_path, port)
        self.scripted = cache_path is None
        self.delay_s = delay_s
        self.served = 0
        self.refused = 0
        self.peak_in_flight = 0  # shows whether the client really overlapped its calls
        self._in_flight = 0
        self._lock = threading.Lock()

    def wait(self, recorded: bool) -> None:
        """Sit out the delay before a recorded answer; a refusal goes out at once."""
        with self._lock:
            if not recorded:
                self.refused += 1
                return
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        time.sleep(self.delay_s)
        with self._lock:
            self._in_flight -= 1
            self.served += 1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.latency_server",
        description="Benchmark instrument: an OpenAI-compatible server on 127.0.0.1 that answers from a recorded "
        "harness cache (matched by request content) after a fixed delay per call. Not a model server.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--cache", type=Path, help="a harness LLM cache file (.jsonl or .jsonl.gz)")
    source.add_argument("--scripted", action="store_true", help="answer by the scripted ALFWorld walker instead")
    parser.add_argument("--delay-ms", type=float, default=500.0, help="delay before each answer (default 500)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    args = parser.parse_args(argv)
    if args.cache is not None and not args.cache.is_file():
        parser.error(f"--cache {args.cache}: no such file")
    with LatencyServer(args.cache, delay_s=args.delay_ms / 1000, port=args.port) as server:
        answers = "the scripted walker's answers" if server.scripted else f"{len(server.answers)} recorded answers"
        print(
            f"latency server (benchmark instrument): {answers} from {args.cache or 'no cache'}, "
            f"{args.delay_ms:g} ms per call, at {server.base_url}; Ctrl-C stops it",
            flush=True,
        )
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
