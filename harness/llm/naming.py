"""How records and reports name a model: by what answers (its config, the model id it asks for, the API host),
so two models behind one config option, or one model on two servers, are never one row."""

from __future__ import annotations

from urllib.parse import urlsplit

from harness.llm._config import ModelConfig
from harness.llm._probe import base_url


def base_url_host(model: ModelConfig) -> str | None:
    """The host (and port) this model's requests go to, as a record names it; None for an embedded model.

    Only the host: a URL's path, query or credentials (http://user:key@host/) never reach a record.
    """
    if model.backend != "openai":
        return None
    parts = urlsplit(base_url(model))
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets, so the port after it stays readable
        host = f"[{host}]"
    return f"{host}:{parts.port}" if parts.port else host


def model_name(model: ModelConfig) -> str:
    """The model as records name it: the config's name, plus the model id where it differs from the name, plus
    the API host, e.g. 'openai-compatible (a @ 127.0.0.1:8080)', 'gpt-4o-mini @ api.openai.com'; an embedded
    model whose key is its name keeps the bare name ('qwen2.5-coder-1.5b', as records have always said)."""
    host = base_url_host(model)
    if host is None:
        return model.name if model.model == model.name else f"{model.name} ({model.model})"
    if model.model == model.name:
        return f"{model.name} @ {host}"
    return f"{model.name} ({model.model} @ {host})"
