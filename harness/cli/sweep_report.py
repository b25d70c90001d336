"""SweepReport: a sweep's jobs combined into one report.md in the sweep directory when the sweep ends.

The input guard (guard.py) plans the jobs and keeps their report. It runs in the launching process, so it works
with every launcher (basic, joblib, submitit, ray) as long as the job directories are visible from there: on SLURM or
a Ray cluster of several machines, `hydra.sweep.dir` must be on a filesystem they share.
"""

from __future__ import annotations

import atexit
from pathlib import Path

from harness.records.sweep_job import SweepJob


class SweepReport:
    """Writes the sweep's combined report when the sweep ends, also when a job failed."""

    def __init__(self, jobs: list[SweepJob], sweep_dir: Path, plots: bool = True) -> None:
        self._jobs = jobs
        self._sweep_dir = sweep_dir
        self._plots = plots
        # Hydra 1.3 skips on_multirun_end when a job failed (the sweeper re-raises its error first, and a job
        # that exits through sys.exit ends the basic launcher's process): the exit hook reports the rest then.
        atexit.register(self.write)

    def write(self) -> None:
        # Imported here: the report's statistics and plots cost every run.py start-up seconds it seldom needs.
        from harness.report.sweep import write_sweep_report

        atexit.unregister(self.write)
        write_sweep_report(self._jobs, self._sweep_dir, self._plots)
