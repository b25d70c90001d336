"""InputGuard: a Hydra callback that refuses bad input before Hydra creates the run directory.

Hydra makes `hydra.run.dir` (and its parents) before `run.py`'s code starts, so a refusal from there would
already have written a directory. The guard runs on `on_run_start`, before that: it checks the directory and
everything about the input that can be checked without writing, and notes in `hydra.runtime` which directory
Hydra is about to create, so a run refused later removes exactly that. On `on_multirun_start` it checks the
sweep directory and every job's input before the first job starts, and that a job's directory holds no run it
could not resume. What it prepared (harness/run/preparation.py) it hands to each job as the job starts, by the job's
number, and it writes the sweep's report when the sweep ends (sweep_report.py), so nothing is validated, built or
probed twice. Registered under `hydra.callbacks` (configs/config.yaml).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hydra._internal.core_plugins.basic_launcher import BasicLauncher
from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import TaskFunction
from omegaconf import DictConfig, OmegaConf, open_dict, read_write

from harness.run.preparation import Handed, PreparedRun, PreparedTask, prepare_run
from harness.cli.sweep_plan import UnknownSweeperError, planned_job_configs, task_config
from harness.cli.sweep_report import SweepReport
from harness.errors import ConfigError, HarnessError, fail, visible
from harness.records.sweep_job import SweepJob
from harness.run.validation import validate_config
from harness.run.interrupt import release_held_stops
from harness.run.preflight import check_store_outside_runs
from harness.run.resume import check_resumption
from harness.records.run_dir import (
    check_not_inside_run, check_output_dir, check_run_dir_contents, first_missing, run_marker,
)

SWEEP_MARKER = "multirun.yaml"
"""What Hydra writes into every sweep directory it starts: a sweep directory without it is not a sweep's."""
CREATED_KEY = "harness_created"
"""Under hydra.runtime: the outermost directory Hydra creates for this run, or None when the run dir existed."""
BASIC_LAUNCHER = f"{BasicLauncher.__module__}.{BasicLauncher.__name__}"
"""The one launcher that runs every job in the launching process, where a built domain can be handed over."""


def created_dir() -> Path | None:
    """The directory this run's Hydra created (see CREATED_KEY); None when it existed or the guard did not run."""
    runtime = HydraConfig.get().runtime
    created = runtime.get(CREATED_KEY) if CREATED_KEY in runtime else None
    return Path(created) if created else None


class InputGuard(Callback):
    """Checks the run (or sweep) directory and the input before anything is created, and hands each job what it
    prepared for it."""

    def __init__(self) -> None:
        self._handed: dict[int | None, Handed] = {}  # by hydra.job.num: None for a single run
        self._report: SweepReport | None = None

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        release_held_stops()  # composed: a stop signal that came meanwhile ends the run here, before anything is made
        try:
            run_dir = check_output_dir(str(config.hydra.run.dir), "hydra.run.dir")
            check_not_inside_run(run_dir, f"hydra.run.dir={config.hydra.run.dir}")
            label, scenario = f"hydra.run.dir={config.hydra.run.dir}", OmegaConf.select(config, "scenario.name")
            check_run_dir_contents(run_dir, label, run_marker(scenario))
            prepared = prepare_run(task_config(config))
            self._handed[None] = prepared
            check_store_outside_runs(prepared.config.tracking, run_dir)
        except HarnessError as error:
            fail(error)
        created = first_missing(run_dir)
        with read_write(config.hydra.runtime), open_dict(config.hydra.runtime):
            config.hydra.runtime[CREATED_KEY] = str(created) if created else None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        release_held_stops()
        try:
            sweep_dir = check_output_dir(str(config.hydra.sweep.dir), "hydra.sweep.dir")
            check_not_inside_run(sweep_dir, f"hydra.sweep.dir={config.hydra.sweep.dir}")
            check_run_dir_contents(sweep_dir, f"hydra.sweep.dir={config.hydra.sweep.dir}", SWEEP_MARKER, ())
            try:
                jobs = planned_job_configs(config)
            except UnknownSweeperError as error:
                # another sweeper plans the jobs; each job checks its own input when it starts
                print(f"no sweep report: {visible(str(error))}", file=sys.stderr)
                return
            in_this_process = config.hydra.launcher.get("_target_") == BASIC_LAUNCHER
            seen: dict[Path, int] = {}
            planned = []
            for job, job_config in jobs:
                if job.directory in seen:
                    raise ConfigError(
                        f"hydra.sweep.subdir gives jobs {seen[job.directory]} and {job.num} the same directory "
                        f"{job.directory}; keep ${{hydra.job.num}} in it."
                    )
                seen[job.directory] = job.num
                planned.append(self._check_job(job, job_config, in_this_process))
            # The combined report draws its plots unless every job's own report is written without them.
            plots = any(OmegaConf.select(job_config, "report.plots", default=True) is not False for _, job_config in jobs)
            self._report = SweepReport(planned, Path(str(config.hydra.sweep.dir)), plots)
        except HarnessError as error:
            self._close_unclaimed()
            fail(error)

    def _check_job(self, job: SweepJob, job_config: DictConfig, in_this_process: bool) -> SweepJob:
        """One job checked (and prepared, when it runs in this process) before the first job starts."""
        try:
            check_not_inside_run(job.directory, f"its directory {job.directory}")
            check_run_dir_contents(job.directory, f"its directory {job.directory}")
            task = task_config(job_config)
            handed: Handed = prepare_run(task) if in_this_process else validate_config(task)
            self._handed[job.num] = handed
            checked = handed.config if isinstance(handed, PreparedRun) else handed
            check_store_outside_runs(checked.tracking, job.directory)
            recorded = checked.model_dump(mode="json")
            check_resumption(job.directory, recorded)
        except HarnessError as error:
            raise ConfigError(f"sweep job {job.num} ({' '.join(job.overrides)}): {error}") from None
        return job.model_copy(update={"config": recorded})

    def on_job_start(self, config: DictConfig, *, task_function: TaskFunction, **kwargs: Any) -> None:
        handed = self._handed.pop(config.hydra.job.get("num"), None)
        if handed is not None and isinstance(task_function, PreparedTask):
            task_function.receive(handed)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self._report is not None:
            self._report.write()
        self._close_unclaimed()

    def _close_unclaimed(self) -> None:
        """Close what no job took (the sweep was refused, or ended early)."""
        for handed in self._handed.values():
            if isinstance(handed, PreparedRun):
                handed.close()
        self._handed.clear()
