"""The run configuration: Hydra composes it, these pydantic models validate it before any work starts."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeVar, Union, get_args

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from harness.domains.registry import domain_specs
from harness.domains.spec import DEFAULT_MEMORY_WINDOW
from harness.errors import ConfigError
from harness.llm import CacheConfig, ModelConfig
from harness.records.number import Number
from harness.records.registry import RegistryLoadError, UnknownNameError
from harness.run.config_dirs import available_options, check_group_choice, option_files
from harness.run.memory_settings import InsightsSettings, MemorySettings, check_memory
from harness.run.metrics_settings import MetricsSettings
from harness.run.diagnosis_bank_config import DiagnosisBankConfig
from harness.run.propagation_config import PropagationConfig
from harness.run.tracking_settings import TrackingSettings

_Model = TypeVar("_Model", bound=BaseModel)
CONFIG_GROUPS = ("env", "model", "strategy", "experiment", "tracking")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# Every domain run.py can select: those whose spec has an env config, shipped or installed (read once, here).
_SELECTABLE = [spec for spec in domain_specs() if spec.env_config is not None]
ENV_NAMES = tuple(spec.name for spec in _SELECTABLE)
# Reflexion's memory windows by domain: ALFWorld's actor reads the last 3 reflections, the programming loop only
# the last, the HotpotQA agent all of them.
PROTOCOL_MEMORY_WINDOW = {spec.name: spec.memory_window for spec in _SELECTABLE}
_ENV_MODELS = tuple(spec.env_config for spec in _SELECTABLE)
EnvConfig = Annotated[Union[_ENV_MODELS], Field(discriminator="name")] if len(_ENV_MODELS) > 1 else _ENV_MODELS[0]
"""The env section: the config model of the domain its `name` selects."""


class ConditionConfig(_Strict):
    """One reflection condition as written in configs/strategy/<name>.yaml."""

    source: str = Field(description="The registered reflection source that writes this condition's memory.")
    memory_window: StrictInt | None = Field(
        None, ge=0, description="Reflections the actor and reflector read; None = the domain's protocol window."
    )
    options: dict[str, Any] = Field(default_factory=dict, description="Settings of the source, checked by it.")
    actor_model: str | None = Field(None, description="A configs/model option for the actor; None = the run's.")
    reflector_model: str | None = Field(None, description="A configs/model option for the reflector; None = the run's.")


class Condition(_Strict):
    """A condition resolved for a run: its source, window, options and both models."""

    name: str = Field(description="The condition's name, as recorded in every trial.")
    source: str
    memory_window: StrictInt = Field(ge=0)
    options: dict[str, Any] = Field(default_factory=dict)
    actor: ModelConfig
    reflector: ModelConfig


class ExperimentConfig(_Strict):
    """How many trials, how wide, and the sampling seed."""

    name: str = "default"
    trials: StrictInt = Field(ge=1, description="Trials per task; solved tasks are skipped in later trials.")
    max_concurrency: StrictInt = Field(1, ge=1, description="Tasks played at once within a trial.")
    seed: StrictInt = Field(
        0,
        ge=0,
        le=2**31 - 1,
        description="Sampling seed of trial 0's requests (each later trial derives its own); 31 bits, which every "
        "backend takes as given (llama.cpp reads a negative seed as 'pick one at random').",
    )
    repeats: StrictInt = Field(
        1,
        ge=1,
        description="Independent repetitions of every (task, condition), each with its own seeds; pooled per task.",
    )
    held_out: bool = Field(
        False,
        description="Step 2 of a held-out selection (experiment=held_out): env.frozen_in must name the selection run.",
    )


class RoleSampling(_Strict):
    """One role's sampling; None keeps the protocol's own value (Reflexion's, request by request)."""

    # Number: a boolean is not a number (pydantic's lax float takes `true` as 1.0), nor is NaN.
    temperature: Number | None = Field(
        None,
        ge=0.0,
        le=2.0,
        description="Temperature of the role's requests, a floor: a request the protocol sends hotter (ALFWorld's "
        "short-output retries at 0.2 x attempt) keeps its own.",
    )
    top_p: Number | None = Field(
        None, gt=0.0, le=1.0, description="Nucleus mass of the role's requests; None = not sent (the backend's default)."
    )


class SamplingSettings(_Strict):
    """Sampling per role (`sampling.actor.temperature=0.7`); by default every request is sent as Reflexion sent it."""

    actor: RoleSampling = Field(default_factory=RoleSampling)
    reflector: RoleSampling = Field(default_factory=RoleSampling)


class PlantedRefusalConfig(_Strict):
    """The planted-question scenario (configs/experiment/planted_refusal.yaml): a conversation, not a task set."""

    name: Literal["planted_refusal"] = "planted_refusal"
    conversation: str = Field(description="JSON file with the conversation's numbered turns.")
    policy: Literal["auto", "owner"] = Field("owner", description="Who promotes gated notes that pass the quote check.")
    cache: CacheConfig = Field(description="The scenario's own answers: the committed ones are replayed by default.")


class LLMSettings(_Strict):
    """Settings that apply to every model of the run."""

    cache: CacheConfig
    n_threads: StrictInt | None = Field(None, ge=1, description="CPU threads for embedded models; None = all cores.")


class ResumeSettings(_Strict):
    """How a run directory that already holds trials may be resumed (`+resume.allow_config_change=true`)."""

    allow_config_change: bool = Field(
        False, description="Resume even under settings that shape trials differently; the manifest lists them."
    )
    adopt_records: bool = Field(
        False,
        description="Resume records found without a manifest as if played under this config; the manifest says so.",
    )


PROGRESS_INTERVAL_S = 60.0
"""Seconds between progress lines off a terminal, unless `progress_interval_s` says otherwise."""


class RunConfig(_Strict):
    """Everything one run needs, validated."""

    env: EnvConfig
    conditions: list[Condition] = Field(min_length=1, description="The conditions, in the order they were chosen.")
    experiment: ExperimentConfig
    llm: LLMSettings
    actor: ModelConfig
    reflector: ModelConfig
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    metrics: MetricsSettings = Field(default_factory=MetricsSettings)
    progress: bool = True
    progress_interval_s: Number = Field(
        PROGRESS_INTERVAL_S, gt=0, description="Off a terminal (a pipe, run.log): seconds between progress lines."
    )
    resume: ResumeSettings = Field(default_factory=ResumeSettings)
    tracking: TrackingSettings = Field(default_factory=TrackingSettings)
    scenario: PlantedRefusalConfig | PropagationConfig | DiagnosisBankConfig | None = Field(
        None, description="Set: run it, not trials."
    )
    memory: MemorySettings = Field(default_factory=MemorySettings)
    insights: InsightsSettings = Field(default_factory=InsightsSettings)

    @field_validator("conditions")
    @classmethod
    def _unique_names(cls, conditions: list[Condition]) -> list[Condition]:
        names = [c.name for c in conditions]
        if len(set(names)) != len(names):
            raise ValueError(f"condition names repeat: {names}")
        return conditions


def load_model_config(name: str) -> dict[str, Any]:
    """A model option by name, as a condition's `actor_model`/`reflector_model` (configs/strategy/) names it."""
    check_group_choice("model", name)
    return OmegaConf.to_container(OmegaConf.load(option_files("model")[name]), resolve=True)  # type: ignore[return-value]


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


# Every top-level key validate_config reads; another (`+tirals=3`) would be silently ignored, so it is refused.
TOP_LEVEL_KEYS = (
    "env",
    "model",
    "strategy",
    "experiment",
    "llm",
    "actor_model",
    "reflector_model",
    "sampling",
    "metrics",
    "progress",
    "progress_interval_s",
    "resume",
    "tracking",
    "scenario",
    *("memory", "insights"),
)


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
    if loc[:1] == ["env"] and len(loc) > 2 and loc[1] in ENV_NAMES:
        del loc[1]  # pydantic names the union member; the user wrote env.<field>
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
    actor = _threads(load_model_config(entry.actor_model) if entry.actor_model else run_actor, n_threads)
    reflector = _threads(load_model_config(entry.reflector_model) if entry.reflector_model else run_reflector, n_threads)
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
        return OmegaConf.to_container(cfg, resolve=True)  # type: ignore[return-value]
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
        window = PROTOCOL_MEMORY_WINDOW.get(env_name, DEFAULT_MEMORY_WINDOW)
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
