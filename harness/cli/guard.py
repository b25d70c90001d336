"""InputGuard: a Hydra callback that refuses bad input before Hydra creates the run directory.

Hydra makes `hydra.run.dir` (and its parents) before `run.py`'s code starts, so a refusal from there would
already have written a directory. The guard runs on `on_run_start`, before that: it checks the directory and
everything about the input that can be checked without writing, and notes in `hydra.runtime` which directory
Hydra is about to create, so a run refused later removes exactly that. On `on_multirun_start` it checks the
sweep directory and every job's input before the first job starts, and that a job's directory holds no run it
could not resume. What it prepared (harness/cli/compose.py) each job and the sweep report take, so nothing is
validated, built or probed twice.
Registered under `hydra.callbacks` (configs/config.yaml).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, open_dict, read_write

from harness.cli.compose import hand_over, hand_over_sweep, prepare_run
from harness.cli.sweep_plan import UnknownSweeperError, planned_job_configs, task_config
from harness.errors import ConfigError, HarnessError, fail
from harness.report.sweep import SweepJob
from harness.run.preflight import check_store_outside_runs
from harness.run.resume import check_resumption
from harness.run.run_dir import check_not_inside_run, check_output_dir, check_run_dir_contents, first_missing

SWEEP_MARKER = "multirun.yaml"
"""What Hydra writes into every sweep directory it starts: a sweep directory without it is not a sweep's."""
CREATED_KEY = "harness_created"
"""Under hydra.runtime: the outermost directory Hydra creates for this run, or None when the run dir existed."""


def created_dir() -> Path | None:
    """The directory this run's Hydra created (see CREATED_KEY); None when it existed or the guard did not run."""
    runtime = HydraConfig.get().runtime
    created = runtime.get(CREATED_KEY) if CREATED_KEY in runtime else None
    return Path(created) if created else None


class InputGuard(Callback):
    """Checks the run (or sweep) directory and the input before anything is created."""

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        try:
            run_dir = check_output_dir(str(config.hydra.run.dir), "hydra.run.dir")
            check_not_inside_run(run_dir, f"hydra.run.dir={config.hydra.run.dir}")
            check_run_dir_contents(run_dir, f"hydra.run.dir={config.hydra.run.dir}")
            task = task_config(config)
            prepared = prepare_run(task)
            hand_over(task, prepared)
            check_store_outside_runs(prepared.config.tracking, run_dir)
        except HarnessError as error:
            fail(error)
        created = first_missing(run_dir)
        with read_write(config.hydra.runtime), open_dict(config.hydra.runtime):
            config.hydra.runtime[CREATED_KEY] = str(created) if created else None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        try:
            sweep_dir = check_output_dir(str(config.hydra.sweep.dir), "hydra.sweep.dir")
            check_not_inside_run(sweep_dir, f"hydra.sweep.dir={config.hydra.sweep.dir}")
            check_run_dir_contents(sweep_dir, f"hydra.sweep.dir={config.hydra.sweep.dir}", SWEEP_MARKER, ())
            try:
                jobs = planned_job_configs(config)
            except UnknownSweeperError as error:
                hand_over_sweep(str(error))
                return  # another sweeper plans the jobs; each job checks its own input when it starts
            seen: dict[Path, int] = {}
            planned: list[SweepJob] = []
            for job, job_config in jobs:
                if job.directory in seen:
                    raise ConfigError(
                        f"hydra.sweep.subdir gives jobs {seen[job.directory]} and {job.num} the same directory "
                        f"{job.directory}; keep ${{hydra.job.num}} in it."
                    )
                seen[job.directory] = job.num
                try:
                    check_not_inside_run(job.directory, f"its directory {job.directory}")
                    check_run_dir_contents(job.directory, f"its directory {job.directory}")
                    task = task_config(job_config)
                    prepared = prepare_run(task)
                    hand_over(task, prepared)
                    check_store_outside_runs(prepared.config.tracking, job.directory)
                    recorded = prepared.config.model_dump(mode="json")
                    check_resumption(job.directory, recorded)
                except HarnessError as error:
                    raise ConfigError(f"sweep job {job.num} ({' '.join(job.overrides)}): {error}") from None
                planned.append(job.model_copy(update={"config": recorded}))
            hand_over_sweep(planned)
        except HarnessError as error:
            fail(error)
