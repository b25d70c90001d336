"""A domain: the tasks of an environment and how one trial of one task is played and measured."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.humaneval.models import CodeAttempt
from harness.llm.metering import MeteredLLM
from harness.metrics.core import MentionCounts
from harness.records import TrialRecord
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
    details: CodeAttempt | None = Field(None, description="Domain evidence kept in the record.")


class Domain(ABC):
    """The tasks of one environment; the loop asks it to play and the metrics ask it what to look for."""

    name: str
    max_steps: int
    """Actions one trial may take (ALFWorld's step budget; one implementation per HumanEval trial)."""
    reflects_after_last_trial: bool = True
    """Whether a failed last trial is reflected on (ALFWorld's update_memory does; HumanEval's loop reflects only
    before a new implementation)."""

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
    ) -> Attempt:
        """One trial of a task, the actor reading `window`; `earlier` are the task's records so far, in order."""

    @abstractmethod
    def finished(self, success: bool, end_reason: str) -> bool:
        """Whether a trial that ended so is the task's last (won, or the protocol stops there, unreflected)."""

    @abstractmethod
    def target(self, task_id: str) -> str:
        """What object mention looks for in the task's reflections, as shown in the metrics."""

    @abstractmethod
    def mentions(self, records: Sequence[TrialRecord]) -> MentionCounts:
        """Object mention over the reflections of one task's records (one condition)."""

    @abstractmethod
    def data_hashes(self) -> dict[str, str]:
        """SHA-256 of the task data this run uses, for the manifest."""
