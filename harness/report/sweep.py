"""SweepReport: a Hydra callback that combines a sweep's jobs into one report.md in the sweep directory.

Registered under `hydra.callbacks` (configs/config.yaml). It runs in the launching process, so it works with
every launcher (basic, joblib, submitit, ray) as long as the job directories are visible from there: on SLURM
or a Ray cluster of several machines, `hydra.sweep.dir` must be on a filesystem they share.
"""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf, open_dict
from pydantic import BaseModel, ConfigDict, Field

from harness.errors import HarnessError
from harness.records import read_manifest
from harness.report import REPORT_FILE, write_report
from harness.report.html import markdown_page, write_page

FINISHED = "finished"
BASIC_SWEEPER = f"{BasicSweeper.__module__}.{BasicSweeper.__name__}"


class UnknownSweeperError(HarnessError):
    """The sweep's jobs cannot be listed before they run: another sweeper than the basic one plans them."""


class SweepJob(BaseModel):
    """One job of the sweep, as planned before it ran."""

    model_config = ConfigDict(frozen=True)

    num: int = Field(description="Hydra's job number (hydra.job.num).")
    overrides: list[str] = Field(description="The job's values of the swept keys.")
    directory: Path = Field(description="Its run directory: hydra.sweep.dir / hydra.sweep.subdir.")


def planned_job_configs(config: DictConfig) -> list[tuple[SweepJob, DictConfig]]:
    """The jobs the basic sweeper launches for `config`, in job-number order, each with its composed config.

    Each job's config is composed the way the launchers do, so any `hydra.sweep.subdir` pattern resolves as it
    will in the job. The split is the basic sweeper's own (hydra-core is pinned).
    """
    target = config.hydra.sweeper.get("_target_")
    if target != BASIC_SWEEPER:
        raise UnknownSweeperError(f"the sweep report knows the jobs of {BASIC_SWEEPER} only, not of {target}.")
    # Resolved first, its ${now:...} is cached in `config`, where the sweeper finds it and every job config copies it.
    sweep_dir = Path(str(config.hydra.sweep.dir))
    loader = GlobalHydra.instance().config_loader()
    params = [f"{key}={value}" for key, value in (config.hydra.sweeper.get("params") or {}).items()]
    task = OmegaConf.to_container(config.hydra.overrides.task, resolve=False)
    overrides = OverridesParser.create(config_loader=loader).parse_overrides([*params, *task])
    swept = {o.get_key_element() for o in overrides if o.is_sweep_override()}
    # max_batch_size only cuts the job list into batches; job numbers run on across them.
    (all_jobs,) = BasicSweeper.split_arguments(overrides, None)
    jobs = []
    for num, job_overrides in enumerate(all_jobs):
        job_config = loader.load_sweep_config(config, job_overrides)
        with open_dict(job_config):
            job_config.hydra.job.num = num
        job = SweepJob(
            num=num,
            # The command line spells every setting `++key=value` (harness.run.cli); the table shows key=value.
            overrides=[o.lstrip("+") for o in job_overrides if o.split("=", 1)[0] in swept],
            directory=sweep_dir / str(job_config.hydra.sweep.subdir),
        )
        jobs.append((job, job_config))
    return jobs


def planned_jobs(config: DictConfig) -> list[SweepJob]:
    """The jobs the basic sweeper launches for `config`, in job-number order, each with its run directory."""
    return [job for job, _ in planned_job_configs(config)]


def job_status(job: SweepJob) -> str:
    """The manifest's status (running, finished, failed), or why there is none."""
    if not job.directory.is_dir():
        return "not started"
    try:
        manifest = read_manifest(job.directory)
    except ValueError:
        return "unreadable manifest"
    return manifest.status if manifest else "no manifest"


def _jobs_section(jobs: Sequence[SweepJob], statuses: Sequence[str], sweep_dir: Path) -> list[str]:
    lines = [
        "## Sweep jobs",
        "",
        (
            "Only jobs that finished are combined above. A job still marked running stopped without recording its "
            "end (it was killed), or was still running when the sweep's own process ended."
        ),
        "",
        "| job | overrides | directory | status | in the report |",
        "|---|---|---|---|---|",
    ]
    for job, status in zip(jobs, statuses):
        link = Path(os.path.relpath(job.directory.resolve(), sweep_dir.resolve())).as_posix()
        included = "yes" if status == FINISHED else "**no**"
        lines.append(f"| {job.num} | {' '.join(job.overrides)} | [{link}]({link}) | {status} | {included} |")
    missing = [f"job {j.num} ({' '.join(j.overrides)}: {s})" for j, s in zip(jobs, statuses) if s != FINISHED]
    lines += ["", f"Missing: {'; '.join(missing)}." if missing else f"All {len(jobs)} jobs finished.", ""]
    return lines


def write_sweep_report(jobs: Sequence[SweepJob], sweep_dir: Path) -> Path:
    """report.md and report.html in `sweep_dir` over the finished jobs (harness.report), then every job's status."""
    statuses = [job_status(job) for job in jobs]
    finished = [job.directory for job, status in zip(jobs, statuses) if status == FINISHED]
    jobs_lines = _jobs_section(jobs, statuses, Path(sweep_dir))
    path = Path(sweep_dir) / REPORT_FILE
    try:
        write_report(finished, sweep_dir, appendix=jobs_lines)
    except HarnessError as error:
        # No finished job, or one whose files cannot be read: the job table still says what happened.
        path.parent.mkdir(parents=True, exist_ok=True)
        markdown = f"# Sweep report: {sweep_dir}\n\nNothing combined: {error}\n\n" + "\n".join(jobs_lines)
        path.write_text(markdown)
        write_page(markdown_page(f"Sweep report: {sweep_dir}", markdown), Path(sweep_dir))
    missing = [f"job {job.num} {status}" for job, status in zip(jobs, statuses) if status != FINISHED]
    # Printed, not logged: the launching process runs under hydra/hydra_logging=disabled.
    print(f"sweep report: {path} ({len(finished)} of {len(jobs)} jobs{'; ' if missing else ''}{', '.join(missing)})")
    return path


class SweepReport(Callback):
    """Writes the sweep's combined report when the sweep ends, also when a job failed."""

    def __init__(self) -> None:
        self._jobs: list[SweepJob] = []
        self._sweep_dir = Path()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        try:
            self._jobs = planned_jobs(config)
        except UnknownSweeperError as error:
            print(f"no sweep report: {error}", file=sys.stderr)
            return
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
