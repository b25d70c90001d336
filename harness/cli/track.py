"""`reflexion-track RUN_DIR [--tracking-uri URI] [--experiment-name NAME] [--run-name NAME]`: a finished run logged
to MLflow again (harness/run/tracking.py)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from harness.errors import EXIT_BROKEN, HarnessError, fail
from harness.run.preflight import check_tracking
from harness.run.tracking import (
    OPTIONS, RELOG_COMMAND, experiment_name, finished_run_reading, log_run, reason_of, settings_with_options,
)
from harness.run.tracking_settings import DEFAULT_TRACKING_URI


def main(argv: Sequence[str] | None = None) -> None:
    """`reflexion-track RUN_DIR [--tracking-uri URI] [--experiment-name NAME] [--run-name NAME]`: log
    a finished run directory to MLflow (after a copy that failed, or a run played with tracking off), by its
    manifest's tracking settings unless an option says otherwise; a new MLflow run each time."""
    parser = argparse.ArgumentParser(prog=RELOG_COMMAND, description=main.__doc__)
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a finished run's directory")
    parser.add_argument(
        "--tracking-uri", help=f"sqlite:///<file> or file:<directory>; default: the run's, else {DEFAULT_TRACKING_URI}"
    )
    parser.add_argument("--experiment-name", help="default: the run's, else <env.name>/<experiment.name>")
    parser.add_argument("--run-name", help="default: the run's, else the run directory's name")
    args = parser.parse_args(argv)
    try:
        config, metrics = finished_run_reading(args.run_dir)
        settings = settings_with_options(config, {field: getattr(args, field) for field in OPTIONS})
        check_tracking(settings)
    except HarnessError as error:
        fail(error)
    try:
        run_id = log_run(settings, config, args.run_dir, metrics)
    except Exception as error:  # the store's failure, in one line; the run directory is untouched
        failed = f"logging {args.run_dir} to MLflow at {settings.tracking_uri} failed ({reason_of(error)})"
        fail(f"{failed}.", EXIT_BROKEN)
    print(f"logged {args.run_dir} to {settings.tracking_uri} as run {run_id} of {experiment_name(settings, config)}")


if __name__ == "__main__":
    main()
