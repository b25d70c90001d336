"""Per-trial accounting of LLM use: tokens, calls, cache hits, retries, latency, and a record of every call."""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

from harness.llm import CachedLLM, CallContext, LLMRequest, LLMResponse, Usage, cache_key
from harness.records.calls import ModelCall

# One order for every meter of the process: a trial's actor and reflector calls merge into the order they were made.
_call_order = itertools.count()


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
        self._call_log: list[tuple[int, ModelCall]] = []

    @property
    def call_log(self) -> list[ModelCall]:
        """Every call this meter made, in order."""
        return [call for _, call in self._call_log]

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
        self._call_log.append((next(_call_order), self._model_call(request, response)))
        return response

    def _model_call(self, sent: LLMRequest, response: LLMResponse) -> ModelCall:
        return ModelCall(
            role=self.context.role,
            key=cache_key(self._llm.identity, sent),
            cached=response.cached,
            backend=self._llm.identity,
            served_model=response.served_model,
            base_url_host=self._llm.host,
            system_fingerprint=response.system_fingerprint,
            finish_reason=response.finish_reason,
            temperature=sent.temperature,
            top_p=sent.top_p,
        )


def calls_in_order(*meters: MeteredLLM) -> list[ModelCall]:
    """The calls of several meters (a trial's actor and reflector) merged in the order they were made."""
    return [call for _, call in sorted(entry for meter in meters for entry in meter._call_log)]
