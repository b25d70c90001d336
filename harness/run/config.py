"""The run configuration: Hydra composes it, these pydantic models validate it before any work starts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from harness.domains.registry import domain_specs
from harness.llm import CacheConfig, ModelConfig
from harness.records.number import Number
from harness.run.memory_settings import InsightsSettings, MemorySettings
from harness.run.metrics_settings import MetricsSettings
from harness.run.diagnosis_bank_config import DiagnosisBankConfig
from harness.run.propagation_config import EntryConfig, PropagationConfig, ReachConfig
from harness.run.tracking_settings import TrackingSettings

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
if TYPE_CHECKING:
    EnvConfig = Any  # built from the installed domains' specs as the module loads: no static type can name it
else:
    EnvConfig = Annotated[Union[_ENV_MODELS], Field(discriminator="name")] if len(_ENV_MODELS) > 1 else _ENV_MODELS[0]
"""The env section: the config model of the domain its `name` selects."""


class ConditionConfig(_Strict):
    """One reflection condition as written in configs/strategy/<name>.yaml."""

    source: str = Field(description="The registered reflection source that writes this condition's memory.")
    memory_window: StrictInt | None = Field(
        None, ge=0, description="Reflections the actor and reflector read; None = the domain's protocol window."
    )
    options: dict[str, Any] = Field(default_factory=dict, description="Settings of the source, checked by it.")
    actor_model: ModelConfig | None = Field(
        None,
        description="The actor's model: a configs/model option Hydra composed here (`/model@<name>.actor_model: "
        "<option>` in the strategy file's defaults, or strategy.<name>.actor_model=<option>); None = the run's.",
    )
    reflector_model: ModelConfig | None = Field(
        None, description="The reflector's model, composed the same way; None = the run's."
    )

    @field_validator("actor_model", "reflector_model", mode="before")
    @classmethod
    def _composed(cls, value: Any) -> Any:
        if isinstance(value, str):  # a name written as a value in a strategy file: Hydra composes no option from it
            raise ValueError(
                "it names a model as a value, which Hydra does not compose; choose the option in the strategy "
                f"file's defaults list (`- /model@<condition>.actor_model: {value}`) or on the command line "
                f"(strategy.<condition>.actor_model={value})"
            )
        return value


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


Scenario = Annotated[
    PlantedRefusalConfig | PropagationConfig | EntryConfig | ReachConfig | DiagnosisBankConfig, Field(discriminator="name")
]
SCENARIO_NAMES = ("planted_refusal", "propagation", "propagation_entry", "propagation_reach", "diagnosis_bank")


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


class ReportSettings(_Strict):
    """What a run's own report holds."""

    plots: bool = Field(True, description="false: report.md and report.html without their PNG plots (same numbers).")


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
    report: ReportSettings = Field(default_factory=ReportSettings)
    progress: bool = True
    progress_interval_s: Number = Field(
        PROGRESS_INTERVAL_S, gt=0, description="Off a terminal (a pipe, run.log): seconds between progress lines."
    )
    resume: ResumeSettings = Field(default_factory=ResumeSettings)
    tracking: TrackingSettings = Field(default_factory=TrackingSettings)
    scenario: Scenario | None = Field(None, description="Set: run it, not trials.")
    memory: MemorySettings = Field(default_factory=MemorySettings)
    insights: InsightsSettings = Field(default_factory=InsightsSettings)

    @field_validator("conditions")
    @classmethod
    def _unique_names(cls, conditions: list[Condition]) -> list[Condition]:
        names = [c.name for c in conditions]
        if len(set(names)) != len(names):
            raise ValueError(f"condition names repeat: {names}")
        return conditions


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
    "report",
    "progress",
    "progress_interval_s",
    "resume",
    "tracking",
    "scenario",
    *("memory", "insights"),
)
