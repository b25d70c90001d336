"""The run's models: one cached backend per (role, model), rate limits shared per API model."""

from __future__ import annotations

from harness.llm import (
    Backend,
    CachedLLM,
    CacheMode,
    CacheStore,
    ModelConfig,
    RateLimitedBackend,
    create_backend,
    limit_key,
    shared_limiters,
)
from harness.llm.naming import base_url_host


class LLMPool:
    """One backend per (role, model): conditions sharing a model share its instance and its warm prefix.

    An embedded model used by both roles is loaded once (harness/llm/_llamacpp.py SharedLlama): each role's
    backend keeps its own KV prefix, parked while the other role runs.

    Rate limits are per provider key and model, not per role: every backend of one API model shares one limiter,
    set up front from all `models` of the run. The limiter sits under the cache, so hits never wait.
    """

    def __init__(self, store: CacheStore, mode: CacheMode, models: list[ModelConfig]) -> None:
        self.store, self.mode = store, mode
        self._llms: dict[tuple[str, str], CachedLLM] = {}
        self._limiters = shared_limiters(models)

    def get(self, role: str, model: ModelConfig) -> CachedLLM:
        key = (role, model.model_dump_json())
        if key not in self._llms:
            backend: Backend = create_backend(model)
            limiter = self._limiters.get(limit_key(model))
            if limiter is not None:
                backend = RateLimitedBackend(backend, limiter)
            self._llms[key] = CachedLLM(backend, self.store, self.mode, host=base_url_host(model))
        return self._llms[key]
