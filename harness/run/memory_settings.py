"""The `memory` and `insights` settings: how far a reflection reaches (a task's own trials, or an ExpeL rule library
read by every evaluation task), and how the library is built.

`memory.scope=trial` is Reflexion and the default: nothing of this module changes such a run.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from harness.errors import ConfigError
from harness.llm import ModelConfig
from harness.reflection.insights import ExpelDomain, InsightsOptions

MemoryScope = Literal["trial", "insights", "both"]
INSIGHTS_DOMAINS: tuple[str, ...] = get_args(ExpelDomain)
"""The domains ExpeL wrote critique instructions and a rule template for."""


class MemorySettings(BaseModel):
    """`memory.scope`: trial (Reflexion), insights (ExpeL), or both (ExpeL's rules with Reflexion's trials)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scope: MemoryScope = Field(
        "trial",
        description="trial: a task reads its own reflections; insights: every evaluation task reads the rule library "
        "built from the training tasks, in one trial; both: the library and its own reflections, over the run's trials.",
    )


class PlantSettings(BaseModel):
    """A reflection planted into one training task's memory while it is played (the behavioural channel)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(description="The training task whose actor reads the planted reflection in every trial.")
    reflection: str = Field(min_length=1, description="The planted text, put first in that task's memory.")


class InsightsSettings(InsightsOptions):
    """ExpeL's insight stage as a run builds it: its options, its folds, and an optional plant."""

    folds: StrictInt = Field(
        2, ge=2, description="ExpeL's k_folds: each fold's tasks are evaluated with the rules of the other folds' tasks."
    )
    fold_seed: StrictInt = Field(
        42, description="Shuffles each outcome group before the deal (ExpeL's yaml names k_folds_seed: 42; its code "
                          "never reads it and shuffles with its global generator).",
    )
    only_fold: StrictInt | None = Field(
        None, ge=0, description="Build and evaluate this fold alone (None: every fold, as ExpeL does)."
    )
    critic_max_tokens: StrictInt = Field(
        512, ge=1, description="The critic's answer bound (ExpeL sets none; a local model needs one)."
    )
    plant: PlantSettings | None = Field(None, description="A planted reflection (the behavioural channel); off.")
    fewshots: Literal["fixed", "task_similarity"] = Field(
        "fixed", description="The evaluation actor's examples: fixed (Reflexion's) or task_similarity (ExpeL's: the "
                             "successful training trajectories of the most similar other tasks of the same type, "
                             "embedded with the semantic extra's model; ALFWorld only).",
    )
    critic_model: ModelConfig | None = Field(
        None, description="The critic's own model: a configs/model option Hydra composed here "
                          "(insights.critic_model=<option>, as a role's model); None: the condition's actor model. "
                          "ExpeL's code uses the agent's model; its paper's runs extract insights with gpt-4 and act "
                          "with gpt-3.5-turbo.",
    )

    @field_validator("critic_model", mode="before")
    @classmethod
    def _composed(cls, value: Any) -> Any:
        if isinstance(value, str):  # a name written as a value in a file: Hydra composes no option from it
            raise ValueError(
                "it names a model as a value, which Hydra does not compose; choose it with "
                f"insights.critic_model={value} on the command line, or `- override /model@insights.critic_model: "
                f"{value}` in a defaults list"
            )
        return value


def check_memory(memory: MemorySettings, insights: InsightsSettings, env: str) -> None:
    """Raise ConfigError, in one sentence, for an insight setting the run cannot honour."""
    if memory.scope == "trial":
        if insights.plant is not None:
            raise ConfigError(
                "insights.plant plants a reflection for the rule library, so it needs memory.scope=insights or both."
            )
        return
    if env not in INSIGHTS_DOMAINS:
        raise ConfigError(
            f"memory.scope={memory.scope} needs ExpeL's critique prompts, which exist for "
            f"{' and '.join(INSIGHTS_DOMAINS)} only, not env={env}; accepted: env={' or env='.join(INSIGHTS_DOMAINS)}."
        )
    if insights.fewshots != "fixed" and env != "alfworld":
        raise ConfigError(
            f"insights.fewshots={insights.fewshots} replaces ALFWorld's fixed examples; env={env} keeps its own "
            "(accepted here: insights.fewshots=fixed)."
        )
    if insights.only_fold is not None and insights.only_fold >= insights.folds:
        raise ConfigError(
            f"insights.only_fold = {insights.only_fold} is invalid: folds are numbered 0 to {insights.folds - 1}."
        )
