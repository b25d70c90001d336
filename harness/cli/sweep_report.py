"""SweepReport: a Hydra callback that combines a sweep's jobs into one report.md in the sweep directory.

Registered under `hydra.callbacks` (configs/config.yaml), after the input guard, whose plan of the jobs it takes.
It runs in the launching process, so it works with every launcher (basic, joblib, submitit, ray) as long as the
job directories are visible from there: on SLURM or a Ray cluster of several machines, `hydra.sweep.dir` must be
on a filesystem they share.
"""

from __future__ import annotations

import atexit
import sys
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from harness.cli.compose import take_sweep
from harness.errors import visible
from harness.report.sweep import SweepJob, write_sweep_report


class SweepReport(Callback):
    """Writes the sweep's combined report when the sweep ends, also when a job failed."""

    def __init__(self) -> None:
        self._jobs: list[SweepJob] = []
        self._sweep_dir = Path()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        planned = take_sweep(config)
        if isinstance(planned, str):
            print(f"no sweep report: {visible(str(planned))}", file=sys.stderr)
            return
        self._jobs = planned
        self._sweep_dir = Path(str(config.hydra.sweep.dir))
        # Hydra 1.3 skips on_multirun_end when a job failed (the sweeper re-raises its error first, and a job
        # that exits through sys.exit ends the basic launcher's process): the exit hook reports the rest then.
        atexit.register(self._write)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self._jobs:
            atexit.unregister(self._write)
            self._write()

    def _write(self) -> None:
        write_sweep_report(self._jobs, self._sweep_dir)
