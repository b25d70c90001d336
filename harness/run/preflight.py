"""Before a run writes anything: can its models answer? The replay cache exists, keys are set, servers respond.

Each of these would otherwise surface only at the first model call, after the run directory was written.
"""

from __future__ import annotations

from pathlib import Path

from harness.run.config import RunConfig
from harness.errors import ConfigError
from harness.llm import ModelConfig, api_key, check_reachable
from harness.reflection import get_source


def models_in_use(config: RunConfig) -> list[ModelConfig]:
    """The distinct models the run's conditions call: every actor, and the reflector of those that reflect."""
    used: list[ModelConfig] = []
    for condition in config.conditions:
        roles = [condition.actor]
        if get_source(condition.source).uses_memory:
            roles.append(condition.reflector)
        used += [model for model in roles if model not in used]
    return used


def check_models(config: RunConfig) -> None:
    """Raise one clear error if a model of the run cannot answer; replay is checked against its cache only."""
    cache = config.llm.cache
    if cache.mode == "replay" and not Path(cache.path).is_file():
        raise ConfigError(
            f"llm.cache.path={cache.path} does not exist, and llm.cache.mode=replay answers only from that file; "
            "point llm.cache.path at a recorded cache, or record one with llm.cache.mode=auto or record."
        )
    for model in models_in_use(config):
        if model.backend != "openai":
            continue
        key = api_key(model)  # the backend needs it even to replay
        if cache.mode != "replay":  # replay never calls the model
            check_reachable(model, key)
