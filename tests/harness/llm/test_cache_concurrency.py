"""Several processes appending to one cache file never interleave or lose a line."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from harness.llm import CacheStore, LLMRequest, LLMResponse, Usage, cache_key

WRITERS = 4
ENTRIES_PER_WRITER = 60


def append_entries(path: str, writer: int) -> None:
    store = CacheStore(path)
    for i in range(ENTRIES_PER_WRITER):
        request = LLMRequest(kind="completion", prompt=f"writer {writer} entry {i}")
        # Long text so a non-atomic append would be visible as interleaved bytes.
        response = LLMResponse(text=f"{writer}:{i} " * 400, usage=Usage(completion_tokens=i), latency_s=0.0)
        store.put(cache_key("multi", request), response, request, "multi")


def test_processes_appending_concurrently(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=append_entries, args=(str(path), w)) for w in range(WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0

    raw_lines = path.read_text().splitlines()
    assert len(raw_lines) == WRITERS * ENTRIES_PER_WRITER
    assert all(json.loads(line)["key"] for line in raw_lines)
    store = CacheStore(path)
    assert len(store) == WRITERS * ENTRIES_PER_WRITER
    request = LLMRequest(kind="completion", prompt="writer 2 entry 59")
    hit = store.get(cache_key("multi", request))
    assert hit is not None and hit.text.startswith("2:59 ")
