"""The composition root: a run's config validated once, its domain built once, its models probed once.

The Hydra callback (`guard.py`) prepares each run before Hydra creates its directory and leaves the result here,
keyed by the config it was prepared from; the task function (`run_command.py`) takes it, and the sweep report
(`sweep_report.py`) takes the sweep's planned jobs. A job that no callback prepared (another sweeper planned it)
prepares itself, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf

from harness.cli.sweep_plan import UnknownSweeperError, planned_jobs
from harness.domains.base import Domain
from harness.domains.registry import build_domain
from harness.report.sweep import SweepJob
from harness.run.config import RunConfig, validate_config
from harness.run.preflight import check_models, check_tracking


@dataclass(frozen=True)
class PreparedRun:
    """A run's input, checked: the validated config and, unless it runs a scenario, its domain."""

    config: RunConfig
    domain: Domain | None

    def close(self) -> None:
        if self.domain is not None:
            self.domain.close()


def prepare_run(cfg: DictConfig | dict[str, Any]) -> PreparedRun:
    """Everything about a run's input that can be checked without writing: the config, its tasks, its models."""
    config = validate_config(cfg)
    if config.scenario is not None:
        return PreparedRun(config, None)
    domain = build_domain(config.env)
    try:
        check_models(config)
        check_tracking(config.tracking)
    except BaseException:
        domain.close()
        raise
    return PreparedRun(config, domain)


_PREPARED: dict[str, PreparedRun] = {}


def _key(cfg: DictConfig) -> str:
    # Unresolved: `${now:...}` and `${hydra:...}` read the same text whether the guard or the job asks.
    return OmegaConf.to_yaml(cfg, resolve=False)


def hand_over(cfg: DictConfig, prepared: PreparedRun) -> None:
    """Keep `prepared` for the job whose task config is `cfg`."""
    previous = _PREPARED.pop(_key(cfg), None)
    if previous is not None:
        previous.close()
    _PREPARED[_key(cfg)] = prepared


def take(cfg: DictConfig) -> PreparedRun:
    """The run prepared for `cfg` by the callback, or prepared now when none was."""
    prepared = _PREPARED.pop(_key(cfg), None)
    return prepared if prepared is not None else prepare_run(cfg)


_SWEEP: list[list[SweepJob] | str] = []


def hand_over_sweep(jobs: list[SweepJob] | str) -> None:
    """Keep the sweep's planned jobs, each with its validated config, for the sweep report (or why there are none)."""
    _SWEEP[:] = [jobs]


def take_sweep(config: DictConfig) -> list[SweepJob] | str:
    """The sweep's jobs the input guard planned, or planned now when it did not; a sentence when they cannot be."""
    if _SWEEP:
        return _SWEEP.pop()
    try:
        return planned_jobs(config)
    except UnknownSweeperError as error:
        return str(error)
