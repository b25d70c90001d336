"""The one module an extension of the harness imports: everything a plugin needs to add a reflection source (with
its own prompts and evidence kind), a domain, a model backend, a report-page renderer or an audit loader.

Its names are the stable surface (docs/plugins.md): they keep their meaning across minor versions, where the modules
behind them may move. Nothing inside the harness imports this module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker sees; at run time each name is loaded on first use (below)
    from harness.domains.base import Attempt, Domain, ReflectionHooks, ReflectionInput, TemplateCandidates
    from harness.domains.registry import register_domain, register_spec
    from harness.domains.spec import DomainSpec
    from harness.llm import ChatMessage, LLMRequest, LLMResponse, ModelConfig, Usage
    from harness.llm.metering import MeteredLLM
    from harness.metrics.core import MentionCounts, object_mention
    from harness.records import TrialRecord
    from harness.records.attempt import attempt_details
    from harness.records.details import ListedSignals, reflection_details
    from harness.records.gate import Turn
    from harness.records.registry import Lazy
    from harness.records.step import Step
    from harness.reflection import Reflection, ReflectionSource, register_source, register_source_prompts
    from harness.report.html import DetailBlock, DetailItem

__all__ = [
    # A reflection source: the class, its answer, its registration, its prompts per domain.
    "Reflection",
    "ReflectionSource",
    "register_source",
    "register_source_prompts",
    # What a source reads of a trial, and how it asks a model (a backend answers the same request types).
    "ReflectionHooks",
    "ReflectionInput",
    "TemplateCandidates",
    "MeteredLLM",
    "ChatMessage",
    "LLMRequest",
    "LLMResponse",
    "ModelConfig",
    "Usage",
    # Evidence kinds: a source's details and a domain's attempt details, validated by their `kind`.
    "reflection_details",
    "attempt_details",
    "ListedSignals",
    # A domain: its spec, its play, what its records hold and measure.
    "DomainSpec",
    "Lazy",
    "register_spec",
    "register_domain",
    "Domain",
    "Attempt",
    "TrialRecord",
    "Step",
    "Turn",
    "MentionCounts",
    "object_mention",
    # How report.html shows an evidence kind.
    "DetailBlock",
    "DetailItem",
]

_EXPORTED: dict[str, tuple[str, ...]] = {
    "harness.domains.base": ("Attempt", "Domain", "ReflectionHooks", "ReflectionInput", "TemplateCandidates"),
    "harness.domains.registry": ("register_domain", "register_spec"),
    "harness.domains.spec": ("DomainSpec",),
    "harness.llm": ("ChatMessage", "LLMRequest", "LLMResponse", "ModelConfig", "Usage"),
    "harness.llm.metering": ("MeteredLLM",),
    "harness.metrics.core": ("MentionCounts", "object_mention"),
    "harness.records": ("TrialRecord",),
    "harness.records.attempt": ("attempt_details",),
    "harness.records.details": ("ListedSignals", "reflection_details"),
    "harness.records.gate": ("Turn",),
    "harness.records.registry": ("Lazy",),
    "harness.records.step": ("Step",),
    "harness.reflection": ("Reflection", "ReflectionSource", "register_source", "register_source_prompts"),
    "harness.report.html": ("DetailBlock", "DetailItem"),
}
_MODULE_OF = {name: module for module, names in _EXPORTED.items() for name in names}


def __getattr__(name: str) -> Any:
    # Each name loads its module on first use: a plugin whose records are read (its evidence model) loads nothing
    # of the harness it does not use.
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'harness.extensions' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
