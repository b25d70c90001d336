"""Entry point: `python run.py [overrides]` runs one experiment; `-m` sweeps over overrides."""

from __future__ import annotations

import sys

from harness.run.interrupt import StartupStop, StopAtOnce  # light: before the handlers, the rest after

STOPPED_AT_ONCE = "interrupted: stopped at once; every trial recorded so far is kept, run the same command to resume."

# A stop signal while the harness loads or plans: nothing is under way, so leave with one line, not a traceback.
# The run installs its own handling for its trials (harness/run/interrupt.py).
STARTUP_STOP = StartupStop(STOPPED_AT_ONCE)
STARTUP_STOP.install()

import logging  # noqa: E402 (after the handlers: loading takes seconds)
from pathlib import Path  # noqa: E402

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.types import RunMode  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from harness.errors import HarnessError, RunInterrupted  # noqa: E402
from harness.run.cli import EXIT_INTERRUPTED, fail, preflight, setup_logging  # noqa: E402
from harness.run.config import validate_config  # noqa: E402
from harness.run.experiment import Experiment  # noqa: E402
from harness.run.guard import created_dir  # noqa: E402
from harness.run.run_dir import remove_created  # noqa: E402
from harness.run.scenarios.planted_refusal import describe, run_planted_refusal  # noqa: E402


@hydra.main(version_base="1.3", config_path="configs", config_name="config")
def main(cfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    # A sweep's job directory belongs to the sweep; a single run's, only as far as Hydra just created it.
    created = run_dir if HydraConfig.get().mode == RunMode.MULTIRUN else created_dir()
    try:
        _start_and_run(cfg, run_dir)
    except BaseException:  # a run that ends before writing anything leaves no directory behind
        remove_created(run_dir, created)
        raise


def _start_and_run(cfg: DictConfig, run_dir: Path) -> None:
    try:
        config = validate_config(cfg)
        if config.scenario is not None:
            outcome = run_planted_refusal(config.scenario, config.reflector, config.experiment.seed, run_dir)
            print(describe(outcome))
            return
        experiment = Experiment(config, run_dir)
    except HarnessError as error:
        fail(error)
    if STARTUP_STOP.received is not None:  # its SystemExit was caught on the way up, by library code
        experiment.close()
        sys.exit(128 + STARTUP_STOP.received)
    setup_logging(run_dir)
    log = logging.getLogger("harness.run")
    log.info("run directory: %s", run_dir)
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


if __name__ == "__main__":
    try:
        sys.argv[1:] = preflight(sys.argv[1:])
        main()
    except KeyboardInterrupt as stopped:  # a second signal during the run's grace: recorded trials are durable
        print(STOPPED_AT_ONCE, file=sys.stderr)
        sys.exit(stopped.exit_code if isinstance(stopped, StopAtOnce) else EXIT_INTERRUPTED)
