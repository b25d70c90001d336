"""A sweep's report: its finished jobs combined into one report.md (and report.html) in the sweep directory, with
every job's status read from the job's own manifest. Which jobs a sweep plans is harness/cli/sweep_plan.py's."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.errors import HarnessError
from harness.records import Manifest, read_manifest
from harness.records.whole_file import write_whole
from harness.report import REPORT_FILE, write_report
from harness.report._document import directory_link, report_title
from harness.report.document import Block, Document, Paragraph, Section, Strong, Table, render_markdown
from harness.report.html import document_page, write_page
from harness.records.sweep_job import SweepJob
from harness.records.config_diff import shaping_changes

FINISHED = "finished"


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


def write_sweep_report(jobs: Sequence[SweepJob], sweep_dir: Path, plots: bool = True) -> Path:
    """report.md and report.html in `sweep_dir` over the finished jobs (harness.report), then every job's status;
    without PNG plots unless `plots`."""
    states = [job_state(job, jobs) for job in jobs]
    finished = [job.directory for job, state in zip(jobs, states) if state.status == FINISHED]
    appendix = jobs_section(jobs, states, Path(sweep_dir))
    path = Path(sweep_dir) / REPORT_FILE
    try:
        write_report(finished, sweep_dir, appendix=appendix, title=sweep_title(jobs, states), plots=plots)
    except HarnessError as error:
        # No finished job, or one whose files cannot be read: the job table still says what happened.
        path.parent.mkdir(parents=True, exist_ok=True)
        document = Document(f"Sweep report: {sweep_dir}", [Paragraph(f"Nothing combined: {error}"), *appendix])
        write_whole(path, render_markdown(document))
        write_page(document_page(document), Path(sweep_dir))
    missing = [f"job {job.num} {state.status}" for job, state in zip(jobs, states) if state.status != FINISHED]
    # Printed, not logged: the launching process runs under hydra/hydra_logging=disabled.
    print(f"sweep report: {path} ({len(finished)} of {len(jobs)} jobs{'; ' if missing else ''}{', '.join(missing)})")
    return path
