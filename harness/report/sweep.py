"""SweepReport: a Hydra callback that combines a sweep's jobs into one report.md in the sweep directory.

Registered under `hydra.callbacks` (configs/config.yaml). It runs in the launching process, so it works with
every launcher (basic, joblib, submitit, ray) as long as the job directories are visible from there: on SLURM
or a Ray cluster of several machines, `hydra.sweep.dir` must be on a filesystem they share.
"""

from __future__ import annotations

import atexit
import copy
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf, open_dict, read_write
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, ConfigDict, Field

from harness.errors import HarnessError
from harness.records import Manifest, read_manifest
from harness.report import REPORT_FILE, write_report
from harness.report._document import directory_link, report_title
from harness.report.document import Block, Document, Paragraph, Section, Strong, Table, render_markdown
from harness.report.html import document_page, write_page
from harness.run.config import validate_config
from harness.run.config_diff import shaping_changes

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
    config: dict[str, Any] | None = Field(
        None, description="The validated config the job records in its manifest; None when it does not validate."
    )


def task_config(config: DictConfig) -> DictConfig:
    """The config the run's code sees: without the `hydra` node (as Hydra's run_job hands it over)."""
    task = copy.deepcopy(config)
    with read_write(task), open_dict(task):
        del task["hydra"]
    return task


def _recorded_config(job_config: DictConfig) -> dict[str, Any] | None:
    """The config a job's manifest will hold, to recognise the job's run by; None when it does not validate (the
    input guard refuses such a sweep before it starts)."""
    try:
        return validate_config(task_config(job_config)).model_dump(mode="json")
    except (HarnessError, OmegaConfBaseException):
        return None


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
    """The jobs the basic sweeper launches for `config`, in job-number order, each with its run directory and the
    config its manifest will record."""
    jobs = planned_job_configs(config)
    return [job.model_copy(update={"config": _recorded_config(job_config)}) for job, job_config in jobs]


class JobState(BaseModel):
    """What a job's directory holds, read from the job's own manifest."""

    model_config = ConfigDict(frozen=True)

    label: str = Field(description="The swept values of the run the directory holds.")
    status: str = Field(description="The manifest's status (running, finished, failed), or why there is none.")


NO_JOB_OF_THIS_SWEEP = "the settings of no job of this sweep (see its manifest.json)"


def _label(job: SweepJob, manifest: Manifest | None, jobs: Sequence[SweepJob]) -> str:
    """The swept values of the planned job whose config the manifest records, the job's own tried first: a sweep
    started again with its list in another order labels each directory by the run it holds, not by the new plan.
    Without a manifest the job has not recorded a run, and its planned values are all there is."""
    if manifest is None:
        return " ".join(job.overrides)
    for candidate in [job, *(other for other in jobs if other is not job)]:
        if candidate.config is not None and not shaping_changes(manifest.config, candidate.config):
            return " ".join(candidate.overrides)
    return NO_JOB_OF_THIS_SWEEP


def job_state(job: SweepJob, jobs: Sequence[SweepJob]) -> JobState:
    """The job's label and status, from its own manifest."""
    planned = " ".join(job.overrides)
    if not job.directory.is_dir():
        return JobState(label=planned, status="not started")
    try:
        manifest = read_manifest(job.directory)
    except ValueError:
        return JobState(label=planned, status="unreadable manifest")
    return JobState(label=_label(job, manifest, jobs), status=manifest.status if manifest else "no manifest")


def jobs_section(jobs: Sequence[SweepJob], states: Sequence[JobState], sweep_dir: Path) -> list[Block]:
    """The job table and what is missing from the report."""
    note = (
        "Only jobs that finished are combined above. A job still marked running stopped without recording its end "
        "(it was killed), or was still running when the sweep's own process ended. A job is labelled by the swept "
        "values of the run its own manifest records (by its planned values until it records one)."
    )
    rows = [
        [
            str(job.num),
            state.label,
            directory_link(job.directory, sweep_dir),
            state.status,
            "yes" if state.status == FINISHED else Strong("no"),
        ]
        for job, state in zip(jobs, states)
    ]
    missing = [f"job {j.num} ({s.label}: {s.status})" for j, s in zip(jobs, states) if s.status != FINISHED]
    table = Table(["job", "overrides", "directory", "status", "in the report"], rows)
    end = f"Missing: {'; '.join(missing)}." if missing else f"All {len(jobs)} jobs finished."
    return [Section("Sweep jobs", [Paragraph(note), table, Paragraph(end)])]


def sweep_title(jobs: Sequence[SweepJob], states: Sequence[JobState]) -> str:
    """The combined report's title: each finished job by its swept values (by its directory's name when it has
    none, or holds the run of no job of this sweep), not by its job number."""
    names = [
        state.label if state.label and state.label != NO_JOB_OF_THIS_SWEEP else job.directory.name
        for job, state in zip(jobs, states)
        if state.status == FINISHED
    ]
    return report_title(names)


def write_sweep_report(jobs: Sequence[SweepJob], sweep_dir: Path) -> Path:
    """report.md and report.html in `sweep_dir` over the finished jobs (harness.report), then every job's status."""
    states = [job_state(job, jobs) for job in jobs]
    finished = [job.directory for job, state in zip(jobs, states) if state.status == FINISHED]
    appendix = jobs_section(jobs, states, Path(sweep_dir))
    path = Path(sweep_dir) / REPORT_FILE
    try:
        write_report(finished, sweep_dir, appendix=appendix, title=sweep_title(jobs, states))
    except HarnessError as error:
        # No finished job, or one whose files cannot be read: the job table still says what happened.
        path.parent.mkdir(parents=True, exist_ok=True)
        document = Document(f"Sweep report: {sweep_dir}", [Paragraph(f"Nothing combined: {error}"), *appendix])
        path.write_text(render_markdown(document))
        write_page(document_page(document), Path(sweep_dir))
    missing = [f"job {job.num} {state.status}" for job, state in zip(jobs, states) if state.status != FINISHED]
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
