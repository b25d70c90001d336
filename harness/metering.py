"""Per-trial accounting of LLM use: tokens, calls, cache hits, retries and latency."""

from __future__ import annotations

import time

from harness.llm import CachedLLM, CallContext, LLMRequest, LLMResponse, Usage


class MeteredLLM:
    """A cached model bound to one caller (task, trial, condition, role), counting what it spends."""

    def __init__(self, llm: CachedLLM, context: CallContext) -> None:
        self._llm = llm
        self.context = context
        self.usage = Usage()
        self.calls = 0
        self.cache_hits = 0
        self.retries = 0
        self.latency_s = 0.0
        self.wait_s = 0.0

    def generate(self, request: LLMRequest) -> LLMResponse:
        started = time.perf_counter()
        response = self._llm.generate(request, self.context)
        self.wait_s += time.perf_counter() - started
        self.calls += 1
        self.cache_hits += int(response.cached)
        self.retries += response.retries
        self.usage = self.usage + response.usage
        self.latency_s += response.latency_s
        return response
