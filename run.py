"""Entry point: `python run.py [overrides]` runs one experiment; `-m` sweeps over overrides."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from harness.errors import HarnessError, RunInterrupted
from harness.run.cli import EXIT_INTERRUPTED, fail, preflight, setup_logging
from harness.run.config import validate_config
from harness.run.experiment import Experiment
from harness.run.guard import created_dir
from harness.run.run_dir import remove_created
from harness.run.scenarios.planted_refusal import describe, run_planted_refusal


@hydra.main(version_base="1.3", config_path="configs", config_name="config")
def main(cfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    # A sweep's job directory belongs to the sweep; a single run's, only as far as Hydra just created it.
    created = run_dir if HydraConfig.get().mode == RunMode.MULTIRUN else created_dir()
    try:
        config = validate_config(cfg)
        if config.scenario is not None:
            outcome = run_planted_refusal(config.scenario, config.reflector, config.experiment.seed, run_dir)
            print(describe(outcome))
            return
        experiment = Experiment(config, run_dir)
    except HarnessError as error:
        remove_created(run_dir, created)
        fail(error)
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
    except KeyboardInterrupt:
        # Before the run began, or a second Ctrl-C: recorded trials are durable; what was under way is not.
        print("interrupted: stopped at once; every trial recorded so far is kept, run the same command to resume.",
              file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
