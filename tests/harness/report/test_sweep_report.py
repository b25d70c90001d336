"""The sweep report: which jobs a sweep plans and where they land, and a report that names the missing ones."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from harness.records import Manifest, TrialLog, write_manifest
from harness.cli.sweep_plan import UnknownSweeperError, planned_job_configs
from harness.report.sweep import NO_JOB_OF_THIS_SWEEP, write_sweep_report
from harness.records.sweep_job import SweepJob
from tests.harness.factories import make_record
from tests.runner import ROOT

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"


@pytest.fixture
def hydra_context() -> Iterator[None]:
    """Hydra set up on the project's configs, as in the launching process of `python run.py -m`."""
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        yield


def planned_jobs(config: DictConfig) -> list[SweepJob]:
    return [job for job, _ in planned_job_configs(config)]


def sweep_config(sweep_dir: Path, task: list[str], *hydra_overrides: str) -> DictConfig:
    """The config a sweep starts from: `task` are the command line's overrides, sweeps included."""
    config = compose("config", overrides=[f"hydra.sweep.dir={sweep_dir}", *hydra_overrides], return_hydra_config=True)
    config.hydra.overrides.task = task
    return config


@pytest.mark.usefixtures("hydra_context")
def test_jobs_are_numbered_as_the_basic_sweeper_numbers_them(tmp_path: Path) -> None:
    task = ["experiment.trials=1", "strategy=self_diagnosis,no_memory", "experiment.seed=0,1"]
    jobs = planned_jobs(sweep_config(tmp_path, task))
    # The product varies the last swept key fastest; keys that do not vary are left out.
    assert [(job.num, job.overrides) for job in jobs] == [
        (0, ["strategy=self_diagnosis", "experiment.seed=0"]),
        (1, ["strategy=self_diagnosis", "experiment.seed=1"]),
        (2, ["strategy=no_memory", "experiment.seed=0"]),
        (3, ["strategy=no_memory", "experiment.seed=1"]),
    ]
    assert [job.directory for job in jobs] == [tmp_path / str(n) for n in range(4)]


@pytest.mark.usefixtures("hydra_context")
def test_a_custom_subdir_resolves_as_it_will_in_the_job(tmp_path: Path) -> None:
    subdir = "hydra.sweep.subdir=${hydra.job.override_dirname}"
    config = sweep_config(tmp_path, ["strategy=self_diagnosis,no_memory"], subdir)
    assert [job.directory for job in planned_jobs(config)] == [
        tmp_path / "strategy=self_diagnosis",
        tmp_path / "strategy=no_memory",
    ]


@pytest.mark.usefixtures("hydra_context")
def test_the_jobs_share_the_timestamped_sweep_directory_the_sweeper_will_use() -> None:
    config = compose("config", return_hydra_config=True)
    config.hydra.overrides.task = ["experiment.seed=0,1"]
    jobs = planned_jobs(config)
    time.sleep(1.1)  # a clock read again now would name another directory
    assert {job.directory.parent for job in jobs} == {Path(str(config.hydra.sweep.dir))}
    assert Path(str(config.hydra.sweep.dir)).parent == Path("results/sweeps")


@pytest.mark.usefixtures("hydra_context")
def test_another_sweeper_is_refused_by_name(tmp_path: Path) -> None:
    config = sweep_config(tmp_path, ["experiment.seed=0,1"])
    config.hydra.sweeper._target_ = "hydra_plugins.optuna.OptunaSweeper"
    with pytest.raises(UnknownSweeperError, match="not of hydra_plugins.optuna.OptunaSweeper"):
        planned_jobs(config)


def planned(num: int, overrides: list[str], sweep_dir: Path) -> SweepJob:
    """A job as planned, with the config its manifest will record (its swept values stand in for the settings)."""
    config = {"experiment": {"trials": 2}, "swept": overrides}
    return SweepJob(num=num, overrides=overrides, directory=sweep_dir / str(num), config=config)


def write_status(job: SweepJob, status: str) -> None:
    """The manifest of the job's run, recording the job's planned config."""
    job.directory.mkdir(exist_ok=True)
    manifest = Manifest(
        config=job.config or {},
        package_versions={},
        git_commit=None,
        data_hashes={},
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        status=status,
    )
    write_manifest(job.directory, manifest)


def test_finished_jobs_are_combined_and_the_others_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jobs = [planned(n, [f"experiment.seed={n}"], tmp_path) for n in range(3)]
    log = TrialLog(jobs[0].directory)
    log.append(make_record(0, "Look in the drawer first.", task=MUG))
    log.append(make_record(1, None, True, task=MUG))
    write_status(jobs[0], "finished")
    write_status(jobs[1], "failed")  # job 2 never started
    path = write_sweep_report(jobs, tmp_path)
    report = path.read_text()
    assert path == tmp_path / "report.md"
    assert "| 0 | [0](0) | finished |" in report.split("## Conditions")[0]
    jobs_table = report.split("## Sweep jobs", 1)[1]
    assert "| 0 | experiment.seed=0 | [0](0) | finished | yes |" in jobs_table
    assert "| 1 | experiment.seed=1 | [1](1) | failed | **no** |" in jobs_table
    assert "| 2 | experiment.seed=2 | [2](2) | not started | **no** |" in jobs_table
    assert "Missing: job 1 (experiment.seed=1: failed); job 2 (experiment.seed=2: not started)." in jobs_table
    assert capsys.readouterr().out == f"sweep report: {path} (1 of 3 jobs; job 1 failed, job 2 not started)\n"


def test_with_no_finished_job_the_report_still_lists_every_job(tmp_path: Path) -> None:
    jobs = [planned(n, [f"strategy={s}"], tmp_path) for n, s in enumerate(["a", "b"])]
    write_status(jobs[0], "running")
    report = write_sweep_report(jobs, tmp_path).read_text()
    assert report.startswith(f"# Sweep report: {tmp_path}\n\nNothing combined: no run directory given.")
    assert "| 0 | strategy=a | [0](0) | running | **no** |" in report
    assert "| 1 | strategy=b | [1](1) | not started | **no** |" in report


def test_a_refused_sweep_rerun_does_not_relabel_the_jobs_each_is_labelled_by_its_own_manifest(tmp_path: Path) -> None:
    """Issue 26, severe 5: "A refused sweep rerun relabels the sweep ... Job labels must come from each job's own
    manifest": the same sweep with its list reversed plans job 0 as no_memory, but directory 0 holds the
    self_diagnosis run."""
    first = [planned(n, [f"strategy={s}"], tmp_path) for n, s in enumerate(["self_diagnosis", "no_memory"])]
    for job in first:
        TrialLog(job.directory).append(make_record(0, "Look in the drawer first.", task=MUG))
        write_status(job, "finished")
    again = [planned(n, [f"strategy={s}"], tmp_path) for n, s in enumerate(["no_memory", "self_diagnosis"])]
    outsider = planned(2, ["strategy=gated"], tmp_path)
    write_status(outsider, "finished")
    jobs_table = write_sweep_report([*again, planned(2, ["strategy=other"], tmp_path)], tmp_path).read_text()
    jobs_table = jobs_table.split("## Sweep jobs", 1)[1]
    assert "| 0 | strategy=self_diagnosis | [0](0) | finished | yes |" in jobs_table
    assert "| 1 | strategy=no_memory | [1](1) | finished | yes |" in jobs_table
    assert f"| 2 | {NO_JOB_OF_THIS_SWEEP} | [2](2) | finished | yes |" in jobs_table


def test_a_change_that_cannot_change_a_trial_keeps_the_jobs_label(tmp_path: Path) -> None:
    job = planned(0, ["strategy=self_diagnosis"], tmp_path)
    write_status(job, "finished")
    resumed = job.model_copy(update={"config": {**(job.config or {}), "experiment": {"trials": 5}, "progress": False}})
    report = write_sweep_report([resumed], tmp_path).read_text()
    assert "| 0 | strategy=self_diagnosis | [0](0) | finished | yes |" in report


def test_the_sweep_page_holds_the_combined_jobs_and_the_job_table(tmp_path: Path) -> None:
    jobs = [planned(n, [f"experiment.seed={n}"], tmp_path) for n in range(2)]
    TrialLog(jobs[0].directory).append(make_record(0, "Look in the drawer first.", task=MUG))
    write_status(jobs[0], "finished")
    write_sweep_report(jobs, tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert "<h2>Sweep jobs</h2>" in page and "Look in the drawer first." in page
    assert 'data-task="pick_and_place_simple-Mug-None-Desk-308/trial_T1"' in page


def test_with_no_finished_job_the_page_still_lists_every_job(tmp_path: Path) -> None:
    jobs = [planned(0, ["strategy=a"], tmp_path)]
    write_sweep_report(jobs, tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert "Nothing combined: no run directory given." in page and "No trial records to show." in page


def test_the_combined_report_is_titled_by_its_jobs_overrides_not_their_numbers(tmp_path: Path) -> None:
    """Issue 28: a sweep's report.html was titled "Report: 0, 1"."""
    jobs = [planned(n, [f"strategy={s}"], tmp_path) for n, s in enumerate(["self_diagnosis", "no_memory", "gated"])]
    for job in jobs[:2]:
        TrialLog(job.directory).append(make_record(0, "Look in the drawer first.", task=MUG))
        write_status(job, "finished")
    write_status(jobs[2], "failed")  # not combined, so not in the title
    title = "Report: strategy=self_diagnosis, strategy=no_memory"
    assert write_sweep_report(jobs, tmp_path).read_text().startswith(f"# {title}\n")
    page = (tmp_path / "report.html").read_text()
    assert f"<title>{title}</title>" in page and f"<h1>{title}</h1>" in page


def test_a_finished_job_holding_no_planned_run_is_titled_by_its_directory(tmp_path: Path) -> None:
    job = planned(0, ["strategy=self_diagnosis"], tmp_path)
    TrialLog(job.directory).append(make_record(0, "Look in the drawer first.", task=MUG))
    write_status(job.model_copy(update={"config": {"other": "settings"}}), "finished")
    assert write_sweep_report([job], tmp_path).read_text().startswith("# Report: 0\n")
