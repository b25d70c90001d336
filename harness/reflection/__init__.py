"""Reflection sources: what turns a failed trajectory into the text that reaches memory.

Each source is one module that registers its class by name (`@register_source("name")`): every module of this
package is imported the first time a source is looked up, and an installed package adds sources through
`reflexion_harness.sources` entry points.
A condition, `configs/strategy/<name>.yaml`, picks a source with its memory window, options and models.
"""

from __future__ import annotations

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.reflection._base import (
    SOURCES,
    GateAnswer,
    Reflection,
    ReflectionSource,
    SourceOutputError,
    checked_reflection,
    register_source,
)
from harness.records.details import ExtractedSignals, ReflectionDetails, TemplateParts
from harness.reflection.source_prompts import register_source_prompts, source_prompts


def available_sources() -> list[str]:
    """Names of every registered reflection source."""
    return SOURCES.names()


def get_source(name: str) -> type[ReflectionSource]:
    """The source class registered under `name`; UnknownNameError listing the sources otherwise."""
    return SOURCES.get(name)


__all__ = [
    "ExtractedSignals",
    "GateAnswer",
    "Reflection",
    "ReflectionDetails",
    "ReflectionHooks",
    "ReflectionInput",
    "ReflectionSource",
    "SourceOutputError",
    "TemplateParts",
    "available_sources",
    "checked_reflection",
    "get_source",
    "register_source",
    "register_source_prompts",
    "source_prompts",
]
