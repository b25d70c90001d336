"""Per-trial accounting of LLM use: tokens, calls, cache hits, retries and latency."""

from __future__ import annotations

import time
from collections.abc import Sequence

from harness.llm import CachedLLM, CallContext, LLMRequest, LLMResponse, Usage


class MeteredLLM:
    """A cached model bound to one caller (task, trial, condition, role), counting what it spends.

    `extra_stop` strings are added to every completion request (the reflector model's `reflector_stop`).
    """

    def __init__(self, llm: CachedLLM, context: CallContext, extra_stop: Sequence[str] = ()) -> None:
        self._llm = llm
        self.context = context
        self.extra_stop = list(extra_stop)
        self.usage = Usage()
        self.calls = 0
        self.cache_hits = 0
        self.retries = 0
        self.latency_s = 0.0
        self.wait_s = 0.0

    def generate(self, request: LLMRequest) -> LLMResponse:
        if self.extra_stop and request.kind == "completion":
            added = [stop for stop in self.extra_stop if stop not in request.stop]
            request = request.model_copy(update={"stop": [*request.stop, *added]})
        started = time.perf_counter()
        response = self._llm.generate(request, self.context)
        self.wait_s += time.perf_counter() - started
        self.calls += 1
        self.cache_hits += int(response.cached)
        self.retries += response.retries
        self.usage = self.usage + response.usage
        self.latency_s += response.latency_s
        return response
