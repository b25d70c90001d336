"""The composition root: a run's config validated once, its domain built once, its models probed once, and handed
to the job it belongs to.

The Hydra callback (`guard.py`) prepares each run before Hydra creates its directory and hands it to the task
(`run_command.py`) as that job starts (`PreparedTask.receive`), by the job's number. A domain cannot travel to
another process, so under a launcher that runs jobs elsewhere (joblib, SLURM, Ray) the callback hands over the
validated config only, and the job builds its domain and probes its models once, where it runs. A job handed
nothing (another sweeper planned it) prepares itself, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from omegaconf import DictConfig

from harness.domains.base import Domain
from harness.domains.registry import build_domain
from harness.run.config import RunConfig
from harness.run.diagnosis_stage import check_diagnosis
from harness.run.validation import validate_config
from harness.run.held_out import SelectionReading, held_out_tasks
from harness.run.insights_stage import check_insights
from harness.run.preflight import check_models, check_tracking


@dataclass(frozen=True)
class PreparedRun:
    """A run's input, checked: the validated config and, unless it runs a scenario, its domain; the selection run
    `env.frozen_in` names, read once for the domain's tasks and the run's manifest."""

    config: RunConfig
    domain: Domain | None
    selection: SelectionReading | None = None

    def close(self) -> None:
        if self.domain is not None:
            self.domain.close()


Handed = PreparedRun | RunConfig
"""What the input guard hands a job: its prepared run, or (for a job in another process) its validated config."""


def finish_preparing(config: RunConfig) -> PreparedRun:
    """What a validated config still needs before the run: its domain built, its models and tracking checked."""
    if config.scenario is not None:
        return PreparedRun(config, None)
    selection, only = held_out_tasks(config)
    domain = build_domain(config.env, only)
    try:
        check_insights(config, domain)
        check_diagnosis(config.metrics.diagnosis, domain)
        check_models(config)
        check_tracking(config.tracking)
    except BaseException:
        domain.close()
        raise
    return PreparedRun(config, domain, selection)


def prepare_run(cfg: DictConfig | dict[str, Any]) -> PreparedRun:
    """Everything about a run's input that can be checked without writing: the config, its tasks, its models."""
    return finish_preparing(validate_config(cfg))


def take(cfg: DictConfig, handed: Handed | None) -> tuple[PreparedRun, str | None]:
    """The job's prepared run, and, when the job prepared (part of) it itself, a sentence for its log saying so."""
    if isinstance(handed, PreparedRun):
        return handed, None
    if isinstance(handed, RunConfig):
        return finish_preparing(handed), (
            "this job built its domain and probed its models once, in its own process (the launcher runs jobs in "
            "other processes; its config was validated before the sweep started)"
        )
    return prepare_run(cfg), "this job prepared itself once, in its own process (no input guard prepared it)"


@runtime_checkable
class PreparedTask(Protocol):
    """A task function that takes its job's prepared run from the input guard as the job starts."""

    def receive(self, handed: Handed) -> None: ...
