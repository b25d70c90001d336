"""The backends by name: the shipped ones by reference to their factories in `_backend.py` (so a config names a
backend without loading it), more from `reflexion_harness.backends` entry points or `register_backend`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.records.registry import Registry

BackendFactory = Callable[[Any], Any]
"""A ModelConfig -> a new Backend; it imports its module itself, so optional packages load only when used."""

BACKENDS: Registry[BackendFactory] = Registry(
    "backend",
    group="reflexion_harness.backends",
    entries={
        "llamacpp": "harness.llm._backend:llamacpp_backend",
        "openai": "harness.llm._backend:openai_backend",
    },
    check=lambda name, factory: None if callable(factory) else "is not callable (a ModelConfig -> a Backend)",
)
