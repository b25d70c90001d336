"""Domains by name: `register_domain` adds one, `build_domain` makes the run's domain from its env config.

The shipped domains are imported only when a run asks for them, so naming one costs nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from harness.domains.base import Domain

DomainBuilder = Callable[[Any, int], Domain]
"""(the env config, the trial budget) -> the domain."""

_SHIPPED = {"alfworld": "harness.domains.alfworld.domain", "humaneval": "harness.domains.humaneval.domain"}
_REGISTERED: dict[str, DomainBuilder] = {}


def register_domain(name: str, builder: DomainBuilder) -> None:
    """Make `name` a domain: `builder(env_config, trials)` returns it."""
    _REGISTERED[name] = builder


def domain_names() -> list[str]:
    return sorted({*_SHIPPED, *_REGISTERED})


def build_domain(env: Any, trials: int) -> Domain:
    """The domain named by `env.name`, built from its config."""
    if env.name in _REGISTERED:
        return _REGISTERED[env.name](env, trials)
    if env.name not in _SHIPPED:
        raise ValueError(f"env.name = {env.name!r} is not a domain; accepted: {', '.join(domain_names())}.")
    builder: DomainBuilder = importlib.import_module(_SHIPPED[env.name]).build
    return builder(env, trials)
