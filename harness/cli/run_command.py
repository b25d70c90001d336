"""`python run.py [overrides]` (or `reflexion-run`): one experiment; `-m` sweeps over overrides."""

from __future__ import annotations

import sys

from harness.run.interrupt import StartupStop, StopAtOnce  # light: before the handlers, the rest after

STOPPED_AT_ONCE = "interrupted: stopped at once; every trial recorded so far is kept, run the same command to resume."

# A stop signal while the harness loads or plans: nothing is under way, so leave with one line, not a traceback.
# The run installs its own handling for its trials (harness/run/interrupt.py).
STARTUP_STOP = StartupStop(STOPPED_AT_ONCE)
STARTUP_STOP.install()

import logging  # the rest after the handlers: loading takes seconds (E402 allowed here in pyproject.toml)
from pathlib import Path
from typing import TYPE_CHECKING

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from harness.run.preparation import Handed, take
from harness.cli.guard import created_dir
from harness.cli.leave import run_and_leave
from harness.cli.overrides import preflight
from harness.run.run_log import setup_logging
from harness.errors import EXIT_INTERRUPTED, HarnessError, RunInterrupted, fail
from harness.run.config_dirs import CONFIG_DIR
from harness.records.run_dir import remove_created
from harness.run.scenarios import run_scenario

if TYPE_CHECKING:
    from harness.run.experiment import Experiment


class RunTask:
    """Hydra's task: one run in the directory Hydra made for it, from what the input guard handed it as the job
    started (harness/run/preparation.py)."""

    def __init__(self) -> None:
        self._handed: Handed | None = None

    def receive(self, handed: Handed) -> None:
        self._handed = handed

    def __call__(self, cfg: DictConfig) -> None:
        handed, self._handed = self._handed, None
        run_dir = Path(HydraConfig.get().runtime.output_dir)
        # A sweep's job directory belongs to the sweep; a single run's, only as far as Hydra just created it.
        created = run_dir if HydraConfig.get().mode == RunMode.MULTIRUN else created_dir()
        try:
            _start_and_run(cfg, handed, run_dir)
        except BaseException:  # a run that ends before writing anything leaves no directory behind
            remove_created(run_dir, created)
            raise


run_task = hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="config")(RunTask())


def _start(cfg: DictConfig, handed: Handed | None, run_dir: Path) -> tuple[Experiment | None, str | None]:
    """The run's experiment, or None when it plays a scenario (played here); and how the job prepared itself."""
    try:
        prepared, prepared_here = take(cfg, handed)
        if prepared.domain is None:  # only a scenario's run has no domain (harness/run/preparation.py)
            run_scenario(prepared.config, run_dir)
            return None, prepared_here
        # Imported once a run is sure to start: its metrics and report (scipy, matplotlib) cost a refusal seconds.
        from harness.run.experiment import Experiment

        # The experiment closes the domain if it fails.
        return Experiment(prepared.config, prepared.domain, prepared.selection, run_dir), prepared_here
    except HarnessError as error:
        fail(error)


def _start_and_run(cfg: DictConfig, handed: Handed | None, run_dir: Path) -> None:
    experiment, prepared_here = _start(cfg, handed, run_dir)
    if experiment is None:
        return
    if STARTUP_STOP.received is not None:  # its SystemExit was caught on the way up, by library code
        experiment.close()
        sys.exit(128 + STARTUP_STOP.received)
    setup_logging(run_dir)
    log = logging.getLogger("harness.run")
    log.info("run directory: %s", run_dir)
    if prepared_here is not None:
        log.info(prepared_here)
    try:
        summary = experiment.run()
    except RunInterrupted as stopped:
        print(f"interrupted: {stopped}", file=sys.stderr)
        sys.exit(stopped.exit_code)
    except HarnessError as error:
        fail(error)
    for condition in summary.conditions:
        log.info("%s: solved %d/%d", condition.condition, condition.solved, condition.tasks)
    log.info("summary in %s, metrics in %s", run_dir / "summary.md", run_dir / "metrics.json")


def main() -> None:
    """The command: overrides checked before Hydra composes, then the task."""
    try:
        sys.argv[1:] = preflight(sys.argv[1:])
        STARTUP_STOP.hold()  # while Hydra composes; the guard's first callback releases it
        run_task()
    except KeyboardInterrupt as stopped:  # a second signal during the run's grace: recorded trials are durable
        print(STOPPED_AT_ONCE, file=sys.stderr)
        sys.exit(stopped.exit_code if isinstance(stopped, StopAtOnce) else EXIT_INTERRUPTED)


def command() -> None:
    """The installed command and `python run.py`: main(), then out without the interpreter's teardown."""
    run_and_leave(main)
