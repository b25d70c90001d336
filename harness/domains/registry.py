"""Domains by name: `register_domain` adds one, `build_domain` makes the run's domain from its env config, and
`mention_rules` gives a domain's object-mention rule to whoever measures records without playing (the report);
`mention_spans` says where a reflection mentions its object, for the report page to highlight; `mention_note`
says in a sentence what the rule looks for, under the reports' tables; `identity_rule` labels a record's reflection
on_task, off_task or vacuous (`harness.records.identity`), and `line_identity` labels one line of
`python -m harness.metrics.identity`.

The shipped domains are imported only when a run or a report asks for them, so naming one costs nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from harness.domains.base import Domain
from harness.metrics.core import MentionCounts, MentionSpan
from harness.records import TrialRecord
from harness.records.identity import ReflectionIdentity

DomainBuilder = Callable[[Any], Domain]
"""The env config -> the domain."""
TargetRule = Callable[[str], str]
"""task id -> what object mention looks for."""
MentionRule = Callable[[Sequence[TrialRecord]], MentionCounts]
"""one task's records under one condition -> its object mention."""
SpanRule = Callable[[TrialRecord], list[MentionSpan]]
"""one record -> where its reflection mentions the object, under each variant of the mention rule."""
IdentityRule = Callable[[TrialRecord], ReflectionIdentity | None]
"""one record -> its reflection's task identity (None without a reflection)."""

# name -> (module with `build`, module with the mention rule, its target function, its mention function)
_SHIPPED = {
    "alfworld": ("harness.domains.alfworld.domain", "harness.domains.alfworld.target", "target_object", "task_mentions"),
    "humaneval": ("harness.domains.humaneval.domain", "harness.domains.humaneval.mention", "task_target", "task_mentions"),
    "hotpotqa": ("harness.domains.hotpotqa.domain", "harness.domains.hotpotqa.mention", "task_target", "task_mentions"),
}
_REGISTERED: dict[str, tuple[DomainBuilder, tuple[TargetRule, MentionRule] | None]] = {}
# name -> (module, function) of the span rule, beside the domain's mention rule
_SHIPPED_SPANS = {
    "alfworld": ("harness.domains.alfworld.target", "reflection_spans"),
    "humaneval": ("harness.domains.humaneval.mention", "reflection_spans"),
    "hotpotqa": ("harness.domains.hotpotqa.mention", "reflection_spans"),
}
_REGISTERED_SPANS: dict[str, SpanRule] = {}
_REGISTERED_NOTES: dict[str, str] = {}
# Each shipped domain's identity rule lives in `harness.domains.<name>.identity`: `record_identity`, `line_identity`
# and `IDENTITY_NOTE`.
_SHIPPED_IDENTITY = ("alfworld", "humaneval", "hotpotqa")
_REGISTERED_IDENTITY: dict[str, tuple[IdentityRule, str | None]] = {}


def register_domain(
    name: str,
    builder: DomainBuilder,
    rules: tuple[TargetRule, MentionRule] | None = None,
    spans: SpanRule | None = None,
    note: str | None = None,
    identity: IdentityRule | None = None,
    identity_note: str | None = None,
) -> None:
    """Make `name` a domain: `builder(env_config)` returns it; `rules` measure its records offline; `spans` say
    where a reflection mentions the object (the report page highlights them); `note` says what the rules look for;
    `identity` labels a record's reflection on_task, off_task or vacuous, and `identity_note` says how."""
    _REGISTERED[name] = (builder, rules)
    if spans is not None:
        _REGISTERED_SPANS[name] = spans
    if note is not None:
        _REGISTERED_NOTES[name] = note
    if identity is not None:
        _REGISTERED_IDENTITY[name] = (identity, identity_note)


def domain_names() -> list[str]:
    return sorted({*_SHIPPED, *_REGISTERED})


def _unknown(name: str) -> ValueError:
    return ValueError(f"env.name = {name!r} is not a domain; accepted: {', '.join(domain_names())}.")


def build_domain(env: Any) -> Domain:
    """The domain named by `env.name`, built from its config."""
    if env.name in _REGISTERED:
        return _REGISTERED[env.name][0](env)
    if env.name not in _SHIPPED:
        raise _unknown(env.name)
    builder: DomainBuilder = importlib.import_module(_SHIPPED[env.name][0]).build
    return builder(env)


def mention_rules(name: str) -> tuple[TargetRule, MentionRule]:
    """The target and the object-mention rule of domain `name`, measured from records alone."""
    if name in _REGISTERED:
        rules = _REGISTERED[name][1]
        if rules is None:
            raise ValueError(f"domain {name!r} was registered without mention rules; pass rules= to register_domain.")
        return rules
    if name not in _SHIPPED:
        raise _unknown(name)
    _, module_name, target, mentions = _SHIPPED[name]
    module = importlib.import_module(module_name)
    return getattr(module, target), getattr(module, mentions)


def mention_spans(name: str) -> SpanRule | None:
    """Domain `name`'s span rule; None for a domain that has none (its mentions are counted, not highlighted)."""
    if name in _REGISTERED_SPANS:
        return _REGISTERED_SPANS[name]
    if name in _REGISTERED or name not in _SHIPPED_SPANS:
        return None
    module_name, function = _SHIPPED_SPANS[name]
    rule: SpanRule = getattr(importlib.import_module(module_name), function)
    return rule


def mention_note(name: str | None) -> str | None:
    """One sentence on what domain `name`'s object is and how each variant finds it; None when none is known."""
    if name in _REGISTERED_NOTES:
        return _REGISTERED_NOTES[name]
    if name is None or name in _REGISTERED or name not in _SHIPPED:
        return None
    note: str = importlib.import_module(_SHIPPED[name][1]).MENTION_NOTE
    return note


def domain_of_tasks(task_ids: Sequence[str]) -> str | None:
    """For records without a manifest: the first domain whose target rule accepts every task id, else None."""
    for name in [*_SHIPPED, *(n for n in _REGISTERED if n not in _SHIPPED)]:
        try:
            target, _ = mention_rules(name)
            for task_id in task_ids:
                target(task_id)
        except ValueError:
            continue
        return name
    return None


def _identity_module(name: str) -> Any:
    return importlib.import_module(f"harness.domains.{name}.identity")


def identity_rule(name: str | None) -> IdentityRule | None:
    """Domain `name`'s identity rule; None for a domain that has none (its reflections are not labelled)."""
    if name in _REGISTERED_IDENTITY:
        return _REGISTERED_IDENTITY[name][0]
    if name is None or name in _REGISTERED or name not in _SHIPPED_IDENTITY:
        return None
    rule: IdentityRule = _identity_module(name).record_identity
    return rule


def identity_note(name: str | None) -> str | None:
    """One sentence on what domain `name`'s identity labels mean; None when it has no rule."""
    if name in _REGISTERED_IDENTITY:
        return _REGISTERED_IDENTITY[name][1]
    if name is None or name in _REGISTERED or name not in _SHIPPED_IDENTITY:
        return None
    note: str = _identity_module(name).IDENTITY_NOTE
    return note


def line_identity(item: dict[str, Any]) -> ReflectionIdentity:
    """The identity of one reflection given as {"domain", "task", "text", ...}; ValueError naming what is wrong."""
    domain, text = item.get("domain"), item.get("text")
    if domain not in _SHIPPED_IDENTITY:
        raise ValueError(f"'domain' is {domain!r}; accepted: {', '.join(_SHIPPED_IDENTITY)}.")
    if not isinstance(text, str):
        raise ValueError("'text' (the reflection, a string) is missing.")
    identity: ReflectionIdentity = _identity_module(domain).line_identity(item)
    return identity
