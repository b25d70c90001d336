"""The prompts a reflection source needs for one domain, registered by (source, domain): a source with prompts of
its own for each domain adds them here (`register_source_prompts`) or through `reflexion_harness.source_prompts`
entry points named `<source>/<domain>`, and no hook is added to the domains for it.

The shipped sources ask the domain's reflection hooks (`harness.domains.base.ReflectionHooks`) instead: every
shipped domain answers all of them.
"""

from __future__ import annotations

from typing import Any

from harness.records.registry import Registry

SOURCE_PROMPTS: Registry[Any] = Registry(
    "source's prompts for a domain",
    group="reflexion_harness.source_prompts",
    unknown=lambda name, accepted: (
        f"no prompts are registered for {name.replace('/', ' on ')}; registered: {', '.join(accepted) or 'none'}"
    ),
)


def prompts_key(source: str, domain: str) -> str:
    """The registry's name for the prompts of `source` on `domain`, as its entry points spell it."""
    return f"{source}/{domain}"


def register_source_prompts(source: str, domain: str, prompts: Any) -> None:
    """Make `prompts` (an object, or a `"module:attribute"` reference) what `source` asks on `domain`."""
    SOURCE_PROMPTS.register(prompts_key(source, domain), prompts)


def source_prompts(source: str, domain: str) -> Any:
    """The prompts `source` registered for `domain`; UnknownNameError naming the registered ones otherwise."""
    return SOURCE_PROMPTS.get(prompts_key(source, domain))
