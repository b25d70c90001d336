"""Hydra's composed config validated into a RunConfig (harness/run/config.py) before any work starts: each role's
model and each condition resolved, every problem one sentence naming the setting as the user wrote it."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any, TypeVar, get_args

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, StrictInt, ValidationError

from harness.domains.spec import DEFAULT_MEMORY_WINDOW
from harness.errors import ConfigError
from harness.llm import ModelConfig
from harness.records.registry import RegistryLoadError, UnknownNameError
from harness.run.config import (
    ENV_NAMES, PROGRESS_INTERVAL_S, PROTOCOL_MEMORY_WINDOW, SCENARIO_NAMES, TOP_LEVEL_KEYS, Condition, ConditionConfig,
    LLMSettings, RunConfig,
)
from harness.run.config_dirs import available_options
from harness.run.memory_settings import check_memory

_Model = TypeVar("_Model", bound=BaseModel)


def _threads(model: dict[str, Any], n_threads: int | None) -> dict[str, Any]:
    return dict(model) if n_threads is None else {**model, "n_threads": n_threads}


def _role_model(raw: dict[str, Any], role: str, n_threads: int | None) -> dict[str, Any]:
    """The run's model for `role`: the option Hydra composed under `<role>_model` (configs/config.yaml), else `model`."""
    key = f"{role}_model"
    chosen = raw.get(key)
    if isinstance(chosen, str):  # a name written as a value (an experiment file's `actor_model: <option>`)
        raise ConfigError(
            f"{key} = {chosen!r} names a model as a value, which Hydra does not compose; choose the option with "
            f"{key}={chosen} on the command line, or `- override /model@{key}: {chosen}` in a defaults list."
        )
    if chosen is not None:
        _section(raw, key, ModelConfig)  # an error names the key written (actor_model.timeout_s), not the role
    return _threads(raw["model"] if chosen is None else chosen, n_threads)


def _fields_at(model: type[BaseModel], path: list[str]) -> list[str]:
    """The field names of the model found at `path` below `model`, or [] when the path leads to no one model."""
    candidates: list[Any] = [model]
    for part in path:
        models = [c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)]
        annotations = [m.model_fields[part].annotation for m in models if part in m.model_fields]
        if annotations:
            candidates = [a for annotation in annotations for a in (get_args(annotation) or (annotation,))]
        else:  # pydantic names the member of a tagged union (env.alfworld) by its `name`
            tags = {m: get_args(m.model_fields["name"].annotation) for m in models if "name" in m.model_fields}
            candidates = [m for m, names in tags.items() if part in names]
    models = [c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)]
    return list(models[0].model_fields) if len(models) == 1 else []


def _closest(name: str, accepted: Sequence[str]) -> str:
    """`(closest: x)` for a misspelled key, or "" when nothing is close."""
    close = difflib.get_close_matches(name, accepted, n=1, cutoff=0.6)
    return f" (closest: {close[0]})" if close else ""


def _first_error_sentence(error: ValidationError, model: type[BaseModel], prefix: str = "") -> str:
    first = error.errors()[0]
    loc = [str(part) for part in first["loc"]]
    accepted = _fields_at(model, loc[:-1]) if first["type"] == "extra_forbidden" else []
    if loc[:1] in (["env"], ["scenario"]) and len(loc) > 2 and loc[1] in ENV_NAMES + SCENARIO_NAMES:
        del loc[1]  # pydantic names the union member; the user wrote env.<field>, scenario.<field>
    where = prefix + (".".join(loc) or "config")
    # A validator that puts `shown` in its error's context names the value as it may be shown (a URL's key hidden).
    value = (first.get("ctx") or {}).get("shown", first.get("input"))
    shown = "" if isinstance(value, dict) else f" = {value!r}"
    message = first["msg"].removeprefix("Value error, ")
    closest = _closest(loc[-1], accepted) if accepted else ""
    known = f"{closest}; accepted: {', '.join(accepted)}" if accepted else ""
    return f"{where}{shown} is invalid: {message}{known}."


def resolve_condition(
    name: str,
    raw: Any,
    run_actor: dict[str, Any],
    run_reflector: dict[str, Any],
    n_threads: int | None,
    default_window: StrictInt = DEFAULT_MEMORY_WINDOW,
) -> Condition:
    """One configs/strategy entry checked against the source registry and turned into a Condition."""
    from harness.reflection import available_sources, get_source

    if not isinstance(raw, dict):
        raise ConfigError(f"strategy.{name} must be a mapping with at least `source`, not {raw!r}.")
    if "source" not in raw and name in available_options("strategy"):
        # strategy.model_swap.actor_model=... without choosing model_swap: the setting made a condition of its own.
        setting = next(iter(raw), "source")
        raise ConfigError(
            f"strategy.{name}.{setting} is set, but {name} is not among the chosen conditions; choose it too, e.g. "
            f"strategy=[self_diagnosis,{name}]."
        )
    try:
        entry = ConditionConfig.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(_first_error_sentence(error, ConditionConfig, f"strategy.{name}.")) from None
    try:
        source = get_source(entry.source)
    except UnknownNameError:
        raise ConfigError(
            f"strategy.{name}.source = {entry.source!r} is not a reflection source; "
            f"accepted: {', '.join(available_sources())}."
        ) from None
    except RegistryLoadError as error:  # an installed plugin's that failed to load: why, not "unknown"
        raise ConfigError(f"strategy.{name}.source = {entry.source!r} cannot be used: {error}") from None
    try:
        source.Options.model_validate(entry.options)
    except ValidationError as error:
        raise ConfigError(_first_error_sentence(error, source.Options, f"strategy.{name}.options.")) from None
    # The composed options as written (validated above): compared with the run's as Hydra composed those.
    actor = _threads(raw["actor_model"] if entry.actor_model else run_actor, n_threads)
    reflector = _threads(raw["reflector_model"] if entry.reflector_model else run_reflector, n_threads)
    if source.swaps_models and actor == run_actor and reflector == run_reflector:
        raise ConfigError(
            f"strategy.{name} (source {entry.source}) swaps no model: set strategy.{name}.actor_model or "
            f"strategy.{name}.reflector_model to a model other than the run's ({run_actor['name']})."
        )
    return Condition(
        name=name,
        source=entry.source,
        memory_window=default_window if entry.memory_window is None else entry.memory_window,
        options=entry.options,
        actor=actor,
        reflector=reflector,
    )


def _section(raw: dict[str, Any], key: str, model: type[_Model]) -> _Model:
    """`raw[key]` validated as `model`, or ConfigError naming the setting under `key`."""
    value = raw.get(key)
    if not isinstance(value, dict):
        raise ConfigError(f"{key} = {value!r} is invalid: it must be a mapping of settings ({key}.<setting>=...).")
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise ConfigError(_first_error_sentence(error, model, f"{key}.")) from None


def _resolved(cfg: DictConfig) -> dict[str, Any]:
    """The config with every `${...}` resolved, or ConfigError naming the setting whose interpolation fails."""
    try:
        return OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as error:
        key = getattr(error, "full_key", None) or "a setting"
        written: Any = OmegaConf.to_container(cfg, resolve=False)
        for part in key.split("."):
            written = written.get(part) if isinstance(written, dict) else None
        shown = f" = {written!r}" if isinstance(written, str) else ""  # as written, before resolving
        reason = str(error).splitlines()[0].split(": ", 1)[-1].strip('"').rstrip(".")
        raise ConfigError(
            f"{key}{shown} cannot be resolved ({reason}); set what it refers to, or write the value out."
        ) from None


def validate_config(cfg: DictConfig | dict[str, Any]) -> RunConfig:
    """Turn Hydra's composed config into a RunConfig, or raise ConfigError with one clear sentence."""
    raw: dict[str, Any] = _resolved(cfg) if isinstance(cfg, DictConfig) else dict(cfg)
    raw.pop("hydra", None)
    unknown = sorted(set(raw) - set(TOP_LEVEL_KEYS))
    if unknown:
        accepted = ", ".join(TOP_LEVEL_KEYS)
        closest = _closest(unknown[0], TOP_LEVEL_KEYS)
        raise ConfigError(f"{unknown[0]} is not a known setting{closest}; accepted at the top level: {accepted}.")
    # The sections copied into every condition's models are checked first, so an error names the key the user
    # wrote (llm.n_threads, model.timeout_s), not the role it reached (actor.n_threads).
    n_threads = _section(raw, "llm", LLMSettings).n_threads
    _section(raw, "model", ModelConfig)
    strategies = raw.get("strategy")
    if not isinstance(strategies, dict) or not strategies:
        raise ConfigError(f"strategy = {strategies!r} is invalid: choose at least one, e.g. strategy=self_diagnosis.")
    try:
        actor = _role_model(raw, "actor", n_threads)
        reflector = _role_model(raw, "reflector", n_threads)
        env_name = (raw.get("env") or {}).get("name") if isinstance(raw.get("env"), dict) else None
        window = PROTOCOL_MEMORY_WINDOW.get(str(env_name), DEFAULT_MEMORY_WINDOW)
        conditions = [
            resolve_condition(name, entry, actor, reflector, n_threads, window) for name, entry in strategies.items()
        ]
        candidate = {
            "env": raw.get("env"),
            "conditions": conditions,
            "experiment": raw.get("experiment"),
            "llm": raw.get("llm"),
            "actor": actor,
            "reflector": reflector,
            "sampling": raw.get("sampling") or {},
            "metrics": raw.get("metrics") or {},
            "report": raw.get("report") or {},
            "progress": raw.get("progress", True),
            "progress_interval_s": raw.get("progress_interval_s", PROGRESS_INTERVAL_S),
            "resume": raw.get("resume") or {},
            "tracking": raw.get("tracking") or {},
            "scenario": raw.get("scenario"),
            "memory": raw.get("memory") or {},
            "insights": raw.get("insights") or {},
        }
        config = RunConfig.model_validate(candidate)
    except ValidationError as error:
        raise ConfigError(_first_error_sentence(error, RunConfig)) from None
    if config.experiment.held_out and getattr(config.env, "frozen_in", None) is None:
        raise ConfigError(
            "experiment.held_out=true plays the tasks that froze in a selection run, so it needs "
            f"env.frozen_in=<that run's directory> (step 1: {_selection_step(config.env.name)})."
        )
    check_memory(config.memory, config.insights, config.env.name)
    return config


def _selection_step(env: str) -> str:
    """Step 1 of a held-out selection on `env`: its shipped experiment (ALFWorld's has no prefix), else a run."""
    experiment = "held_out_select" if env == "alfworld" else f"{env}_held_out_select"
    if experiment in available_options("experiment"):
        return f"python run.py experiment={experiment}"
    return f"a finished python run.py env={env} strategy=self_diagnosis"
