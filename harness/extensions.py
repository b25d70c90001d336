"""The one module an extension of the harness imports: everything a plugin needs to add a reflection source (with
its own prompts and evidence kind), a domain, a model backend, a report-page renderer or an audit loader.

Its names are the stable surface (docs/plugins.md): they keep their meaning across minor versions, where the modules
behind them may move. Nothing inside the harness imports this module.
"""

from __future__ import annotations

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
