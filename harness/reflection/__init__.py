"""Reflection sources: what turns a failed trajectory into the text that reaches memory.

Each source is one module registered by name (add a module and list it in `_SOURCE_MODULES`).
A condition, `configs/strategy/<name>.yaml`, picks a source with its memory window, options and models.
"""

from __future__ import annotations

from importlib import import_module

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.reflection._base import GateAnswer, Reflection, ReflectionSource, register_source, registered_sources
from harness.records.details import ExtractedSignals, ReflectionDetails, TemplateParts

_SOURCE_MODULES = ("self_diagnosis", "no_memory", "grounded_template", "programmatic", "model_swap", "gated")


def _import_all() -> None:
    for module in _SOURCE_MODULES:
        import_module(f"harness.reflection.{module}")


def available_sources() -> list[str]:
    """Names of every registered reflection source."""
    _import_all()
    return sorted(registered_sources())


def get_source(name: str) -> type[ReflectionSource]:
    """The source class registered under `name`."""
    _import_all()
    sources = registered_sources()
    if name not in sources:
        raise KeyError(f"unknown reflection source {name!r}; accepted: {', '.join(sorted(sources))}")
    return sources[name]


__all__ = [
    "ExtractedSignals",
    "GateAnswer",
    "Reflection",
    "ReflectionDetails",
    "ReflectionHooks",
    "ReflectionInput",
    "ReflectionSource",
    "TemplateParts",
    "available_sources",
    "get_source",
    "register_source",
]
