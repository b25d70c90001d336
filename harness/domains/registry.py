"""Domains by name, each one DomainSpec (`harness.domains.spec`): the shipped ones by reference to their
`harness/domains/<name>/spec.py`, more from `reflexion_harness.domains` entry points or `register_domain`.

`build_domain` makes the run's domain from its env config; `mention_rules` gives a domain's object-mention rule to
whoever measures records without playing (the report); `mention_spans` says where a reflection mentions its object,
for the report page to highlight; `mention_note` says in a sentence what the rule looks for, under the reports'
tables; `identity_rule` labels a record's reflection on_task, off_task or vacuous (`harness.records.identity`), and
`line_identity` labels one line of `reflexion-identity`.

A spec imports only its config and record model, and its rules load when first asked for, so naming a domain
costs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from harness.domains.spec import (
    DEFAULT_MEMORY_WINDOW,
    DomainBuilder,
    DomainSpec,
    IdentityRule,
    MentionRule,
    SpanRule,
    TargetRule,
)
from harness.records.attempt import ATTEMPT_DETAILS
from harness.records.registry import Lazy, Registry

if TYPE_CHECKING:
    from harness.domains.base import Domain
    from harness.records.identity import ReflectionIdentity


def _is_spec(name: str, spec: Any) -> str | None:
    if not isinstance(spec, DomainSpec):
        return "is not a DomainSpec"
    return None if spec.name == name else f"is the spec of {spec.name!r}"


DOMAINS: Registry[DomainSpec] = Registry(
    "domain",
    group="reflexion_harness.domains",
    entries={
        "alfworld": "harness.domains.alfworld.spec:SPEC",
        "humaneval": "harness.domains.humaneval.spec:SPEC",
        "hotpotqa": "harness.domains.hotpotqa.spec:SPEC",
    },
    check=_is_spec,
    unknown=lambda name, accepted: f"env.name = {name!r} is not a domain; accepted: {', '.join(accepted)}.",
)


def register_spec(spec: DomainSpec) -> None:
    """Make `spec` the domain called `spec.name` (its record model too, so its records read)."""
    DOMAINS.register(spec.name, spec)
    if spec.details is not None:
        ATTEMPT_DETAILS.register(spec.name, spec.details)


def register_domain(
    name: str,
    builder: DomainBuilder,
    rules: tuple[TargetRule, MentionRule] | None = None,
    spans: SpanRule | None = None,
    note: str | None = None,
    identity: IdentityRule | None = None,
    identity_note: str | None = None,
    memory_window: int = DEFAULT_MEMORY_WINDOW,
) -> None:
    """Make `name` a domain: `builder(env_config, only)` returns it (`only`: the held-out tasks to keep, or None); `rules` measure its records offline; `spans` say
    where a reflection mentions the object (the report page highlights them); `note` says what the rules look for;
    `identity` labels a record's reflection on_task, off_task or vacuous, and `identity_note` says how.

    A shorthand for `register_spec` with objects rather than references; it gives no env config, so run.py
    cannot select the domain (a DomainSpec with `env_config` can)."""

    def given(value: Any) -> Lazy[Any] | None:
        return None if value is None else Lazy.of(value)

    register_spec(
        DomainSpec(
            name=name,
            builder=Lazy.of(builder),
            memory_window=memory_window,
            target=given(rules[0] if rules else None),
            mentions=given(rules[1] if rules else None),
            spans=given(spans),
            mention_note=given(note),
            identity=given(identity),
            identity_note=given(identity_note),
        )
    )


def domain_spec(name: str) -> DomainSpec:
    """The spec of domain `name`; UnknownNameError (a ValueError) naming the domains otherwise."""
    return DOMAINS.get(name)


def domain_specs() -> list[DomainSpec]:
    """Every domain's spec: the shipped ones first, then those registered or installed."""
    return list(DOMAINS.load_all().values())


def domain_names() -> list[str]:
    return DOMAINS.names()


def build_domain(env: Any, only: frozenset[str] | None = None) -> Domain:
    """The domain named by `env.name`, built from its config, keeping only the tasks `only` names when given (a
    held-out run's frozen tasks: harness/run/held_out.py)."""
    return domain_spec(env.name).builder.load()(env, only)


def mention_rules(name: str) -> tuple[TargetRule, MentionRule]:
    """The target and the object-mention rule of domain `name`, measured from records alone."""
    spec = domain_spec(name)
    if spec.target is None or spec.mentions is None:
        raise ValueError(f"domain {name!r} was registered without mention rules; pass rules= to register_domain.")
    return spec.target.load(), spec.mentions.load()


def _known(name: str | None) -> DomainSpec | None:
    return DOMAINS.get(name) if name is not None and name in DOMAINS else None


def mention_spans(name: str) -> SpanRule | None:
    """Domain `name`'s span rule; None for a domain that has none (its mentions are counted, not highlighted)."""
    spec = _known(name)
    return None if spec is None or spec.spans is None else spec.spans.load()


def mention_note(name: str | None) -> str | None:
    """One sentence on what domain `name`'s object is and how each variant finds it; None when none is known."""
    spec = _known(name)
    return None if spec is None or spec.mention_note is None else spec.mention_note.load()


def domain_of_tasks(task_ids: Sequence[str]) -> str | None:
    """For records without a manifest: the first domain whose target rule accepts every task id, else None."""
    for spec in domain_specs():
        if spec.target is None or spec.mentions is None:
            continue
        target = spec.target.load()
        try:
            for task_id in task_ids:
                target(task_id)
        except ValueError:
            continue
        return spec.name
    return None


def identity_rule(name: str | None) -> IdentityRule | None:
    """Domain `name`'s identity rule; None for a domain that has none (its reflections are not labelled)."""
    spec = _known(name)
    return None if spec is None or spec.identity is None else spec.identity.load()


def identity_note(name: str | None) -> str | None:
    """One sentence on what domain `name`'s identity labels mean; None when it has no rule."""
    spec = _known(name)
    return None if spec is None or spec.identity is None or spec.identity_note is None else spec.identity_note.load()


def line_identity(item: dict[str, Any]) -> ReflectionIdentity:
    """The identity of one reflection given as {"domain", "task", "text", ...}; ValueError naming what is wrong."""
    domain, text = item.get("domain"), item.get("text")
    labelled = [spec for spec in domain_specs() if spec.line_identity is not None]
    spec = next((s for s in labelled if s.name == domain), None)
    if spec is None or spec.line_identity is None:
        raise ValueError(f"'domain' is {domain!r}; accepted: {', '.join(s.name for s in labelled)}.")
    if not isinstance(text, str):
        raise ValueError("'text' (the reflection, a string) is missing.")
    return spec.line_identity.load()(item)
