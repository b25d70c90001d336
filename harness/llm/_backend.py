"""The Backend protocol, the shipped backends' factories, and the one place a backend is built by its name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from harness.errors import LLMError
from harness.llm._backends import BACKENDS, BackendFactory
from harness.llm._config import ModelConfig
from harness.llm._types import LLMRequest, LLMResponse


@runtime_checkable
class Backend(Protocol):
    """Something that turns a request into a response. It never caches: CachedLLM wraps it."""

    identity: str
    """What changes outputs (backend, model, weights hash), never a URL or key: part of every cache key."""

    def generate(self, request: LLMRequest) -> LLMResponse: ...


def register_backend(name: str) -> Callable[[BackendFactory], BackendFactory]:
    """Register a factory under `name`; the factory imports its module itself, so optional deps load lazily."""

    def decorate(factory: BackendFactory) -> BackendFactory:
        BACKENDS.register(name, factory)
        return factory

    return decorate


def available_backends() -> list[str]:
    """Registered backend names: the shipped ones, those registered and those of installed packages."""
    return BACKENDS.names()


def create_backend(config: ModelConfig) -> Backend:
    """A new backend instance for `config` (each call owns its own model or client)."""
    if config.backend not in BACKENDS:
        raise LLMError(f"unknown backend {config.backend!r}; accepted: {', '.join(available_backends())}")
    backend: Backend = BACKENDS.get(config.backend)(config)
    return backend


def _missing_dependency(backend: str, error: ModuleNotFoundError, install: str) -> LLMError:
    if (error.name or "").startswith("harness"):
        raise error  # our own bug, not a missing optional package
    return LLMError(
        f"backend {backend!r} needs the package {error.name!r}, which is not installed: pip install {install}"
    )


def openai_backend(config: ModelConfig) -> Backend:
    try:
        from harness.llm._openai import OpenAIBackend
    except ModuleNotFoundError as error:
        raise _missing_dependency("openai", error, "openai tenacity") from error
    return OpenAIBackend(config)


def llamacpp_backend(config: ModelConfig) -> Backend:
    try:
        from harness.llm._llamacpp import LlamaCppBackend
    except ModuleNotFoundError as error:
        raise _missing_dependency("llamacpp", error, "llama-cpp-python==0.3.36") from error
    return LlamaCppBackend(config)
