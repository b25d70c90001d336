"""The settings a command line may name, read off the pydantic models that validate them.

The models, not the YAML files, say which keys exist: `model.timeout_s` is a setting although no
configs/model/*.yaml spells it out. A key the models do not know is a typo, answered with the closest key.
"""

from __future__ import annotations

import difflib
import types
from typing import Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel

from harness.errors import ConfigError
from harness.llm import ModelConfig
from harness.reflection import available_sources, get_source
from harness.run.config import (
    ConditionConfig,
    ExperimentConfig,
    LLMSettings,
    MetricsSettings,
    PlantedRefusalConfig,
    PropagationConfig,
    EntryConfig,
    ReachConfig,
    ReportSettings,
    ResumeSettings,
    RunConfig,
    SamplingSettings,
    TOP_LEVEL_KEYS,
)
from harness.run.config_dirs import option_files
from harness.run.diagnosis_bank_config import DiagnosisBankConfig
from harness.run.memory_settings import InsightsSettings, MemorySettings
from harness.run.tracking_settings import TrackingSettings

STRATEGY = "strategy"
OPTIONS = "options"
Level = dict[str, list[type[BaseModel]]]
"""The keys accepted at one level of a dotted key, each with the models of the settings below it ([]: a value)."""


def models_of(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation allows (`Price | None` -> [Price])."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if get_origin(annotation) in (Union, types.UnionType):
        return [model for member in get_args(annotation) for model in models_of(member)]
    return []


def _fields(models: list[type[BaseModel]]) -> Level:
    return {name: models_of(field.annotation) for model in models for name, field in model.model_fields.items()}


SECTION_MODELS: Level = {
    "env": models_of(RunConfig.model_fields["env"].annotation),  # every domain's env config, from the union
    "model": [ModelConfig],
    "experiment": [ExperimentConfig],
    "llm": [LLMSettings],
    "metrics": [MetricsSettings],
    "report": [ReportSettings],
    "resume": [ResumeSettings],
    "sampling": [SamplingSettings],
    "scenario": [PlantedRefusalConfig, PropagationConfig, EntryConfig, ReachConfig, DiagnosisBankConfig],
    "tracking": [TrackingSettings],
    "memory": [MemorySettings],
    "insights": [InsightsSettings],
}
TOP_LEVEL: Level = {key: SECTION_MODELS.get(key, []) for key in TOP_LEVEL_KEYS}
"""Every top-level key validate_config reads; a value has no models below it, `strategy` any condition's name."""


def _condition_level(name: str) -> Level:
    """A condition's keys; its options are its source's (from its strategy/<name>.yaml), else any source's."""
    path = option_files(STRATEGY).get(name)
    entry = (yaml.safe_load(path.read_text()) or {}).get(name) if path is not None else None
    source = entry.get("source") if isinstance(entry, dict) else None
    sources = [source] if source in available_sources() else available_sources()
    return {**_fields([ConditionConfig]), OPTIONS: [get_source(s).Options for s in sources]}


def _unknown(parts: list[str], depth: int, level: Level) -> ConfigError:
    key, prefix, part = ".".join(parts), parts[:depth], parts[depth]
    accepted = sorted(level)
    where = f"under {'.'.join(prefix)}" if prefix else "at the top level"
    if not accepted:
        return ConfigError(f"{key} is not a known setting: {'.'.join(prefix)} has no settings.")
    close = difflib.get_close_matches(part, accepted, n=1, cutoff=0.6)
    if not close:
        return ConfigError(f"{key} is not a known setting; settings {where}: {', '.join(accepted)}.")
    closest = ".".join([*prefix, close[0], *parts[depth + 1 :]])
    return ConfigError(
        f"{key} is not a known setting; the closest is {closest} (settings {where}: {', '.join(accepted)})."
    )


def check_setting(key: str) -> None:
    """Raise ConfigError naming the closest setting unless `key` (dotted, as on the command line) is one."""
    parts = key.split(".")
    level = TOP_LEVEL
    for depth, part in enumerate(parts):
        if parts[:depth] == [STRATEGY]:  # strategy.<condition>: any name
            level = _condition_level(part)
            continue
        if part not in level:
            raise _unknown(parts, depth, level)
        below, path = level[part], ".".join(parts[: depth + 1])
        if depth + 1 < len(parts) and not below and path != STRATEGY:
            raise ConfigError(f"{key} is not a known setting: {path} is one value, with no settings under it.")
        level = _fields(below)
