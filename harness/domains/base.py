"""A domain: the tasks of an environment, how one trial of one task is played and measured, and the hooks the
reflection sources call, so that no source ever asks which domain it serves."""

from __future__ import annotations

import copy

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.llm import LLMRequest
from harness.llm.metering import MeteredLLM
from harness.records import TrialRecord
from harness.records.attempt import AttemptDetails
from harness.records.details import ReflectionDetails
from harness.records.gate import Turn
from harness.records.step import Step


class Attempt(BaseModel):
    """What the actor did in one trial, in any domain."""

    model_config = ConfigDict(frozen=True)

    task_text: str
    trajectory: list[Step] = Field(description="ALFWorld: actions and observations; HumanEval: code and feedback.")
    success: bool
    end_reason: str
    scenario: str = Field(description="The text a reflector reads about the attempt.")
    env_s: float = Field(description="Seconds inside the environment (ALFWorld engine, sandbox).")
    env_cpu_s: float | None = Field(None, description="CPU seconds of the environment itself, where it measures them.")
    env_wait_s: float | None = Field(
        None, description="Seconds of env_s spent waiting for an engine worker busy with another episode, where measured."
    )
    details: AttemptDetails | None = Field(
        None, description="Domain evidence kept in the record: the model its `kind` names (`harness.records.attempt`)."
    )


class ReflectionInput(BaseModel):
    """What a source may read about one failed trial."""

    model_config = ConfigDict(frozen=True)

    domain: str = Field(description="The domain's name, by which a source finds its prompts for the domain.")
    task_id: str
    task_text: str
    scenario: str = Field(description="The text a reflector reads (ALFWorld: the episode log; HumanEval: the feedback).")
    trajectory: list[Step] = Field(description="The episode's steps (HumanEval: one, the code and its feedback).")
    end_reason: str = Field(description="Why the episode ended (see TrialRecord.end_reason).")
    max_steps: int = Field(ge=1, description="The episode's step budget.")
    evidence: Any = Field(None, description="The domain's record of the attempt (Attempt.details), for its hooks.")
    memory: list[str] = Field(description="The reflections in the window, oldest first.")
    seed: int = 0


class TemplateCandidates(BaseModel):
    """What a grounded template's FAILED STEP may quote, numbered, and what they are (for the malformed reason)."""

    model_config = ConfigDict(frozen=True)

    items: list[tuple[int, str]] = Field(description="(number, text) of every quotable thing, e.g. (step, action).")
    unmatched: str = Field(description="The reason given when FAILED STEP quotes none of them.")


class ReflectionHooks(ABC):
    """What the reflection sources ask of a domain: its requests, its failure signals, its quotable turns."""

    @abstractmethod
    def self_diagnosis_request(self, trial: ReflectionInput, appendix: str = "") -> LLMRequest:
        """Reflexion's reflection request for the trial; `appendix` follows the scenario (programmatic's signals)."""

    def reflection_text(self, answer: str) -> str:
        """What of a free-text reflection reaches memory: the answer as given, unless the protocol cleans it."""
        return answer

    @abstractmethod
    def failure_signals(self, trial: ReflectionInput) -> tuple[ReflectionDetails, str]:
        """The signals a parser finds without a model, as kept in the record, and the block put into the prompt."""

    @abstractmethod
    def template_request(self, trial: ReflectionInput) -> tuple[LLMRequest, str]:
        """The FAILED STEP / ROOT CAUSE / NEW PLAN request, and the text the answer continues ("" if none)."""

    @abstractmethod
    def template_candidates(self, trial: ReflectionInput) -> TemplateCandidates:
        """What FAILED STEP may quote."""

    @abstractmethod
    def gated_turns(self, trial: ReflectionInput) -> list[Turn]:
        """The trial as numbered turns a lesson may cite; only the outside ones count as evidence."""

    @abstractmethod
    def gated_request(self, trial: ReflectionInput, turns_text: str) -> tuple[LLMRequest, str]:
        """The request for lessons with evidence, and the text the answer continues ("" if none)."""


class Domain(ABC):
    """The tasks of one environment, as the loop plays them; what the metrics look for in its records is its spec's
    (`harness.domains.spec.DomainSpec`), read from records alone."""

    name: str
    max_steps: int
    """Actions one trial may take (ALFWorld's step budget; one implementation per HumanEval trial)."""
    reflection: ReflectionHooks
    """The hooks the reflection sources call for this domain's trials."""
    reflects_after_last_trial: bool = True
    """Whether a failed last trial is reflected on (ALFWorld's update_memory does; HumanEval's loop reflects only
    before a new implementation)."""
    rules: str = ""
    """memory.scope insights or both: the rule library's message, which the actor reads where ExpeL puts it (before
    the task, `insert_before_task_prompt`); "" for none. Only domains with ExpeL's prompts read it."""

    examples: Mapping[str, str] = {}
    """memory.scope insights with `insights.fewshots=task_similarity`: per task, the retrieved examples its actor
    reads in place of the fixed ones (ExpeL's evaluation); empty: the fixed ones. Only ALFWorld reads it."""

    def with_rules(self, rules: str) -> Domain:
        """This domain (sharing what it holds) with its actor reading `rules`."""
        copied = copy.copy(self)
        copied.rules = rules
        return copied

    def with_examples(self, examples: Mapping[str, str]) -> Domain:
        """This domain with its actor reading, for each task named, those examples in place of the fixed ones."""
        copied = copy.copy(self)
        copied.examples = dict(examples)
        return copied

    @abstractmethod
    def task_ids(self) -> list[str]:
        """The chosen tasks, in run order."""

    @abstractmethod
    def play(
        self,
        task_id: str,
        window: list[str],
        earlier: Sequence[TrialRecord],
        actor: MeteredLLM,
        seed: int,
        on_step: Callable[[int], None],
        last_trial: bool,
    ) -> Attempt:
        """One trial of a task, the actor reading `window`; `earlier` are the task's records so far, in order;
        `last_trial`: the run's trial budget ends with this one."""

    def warm_up(self, concurrency: int) -> None:  # noqa: B027 (a hook: a domain with nothing to start needs none)
        """Start, in the background, what `concurrency` trials at once will need (ALFWorld: its engine processes),
        so it gets ready while the run starts; close() releases it."""

    def close(self) -> None:  # noqa: B027 (a hook: a domain that holds nothing needs none)
        """Release what the domain holds while it plays (ALFWorld: its engine processes); the run calls it once."""

    @abstractmethod
    def finished(self, success: bool, end_reason: str) -> bool:
        """Whether a trial that ended so is the task's last (won, or the protocol stops there, unreflected)."""

    @abstractmethod
    def data_hashes(self) -> dict[str, str]:
        """SHA-256 of the task data this run uses, for the manifest."""
