"""A results folder for the index's tests: two runs (one with its report, one whose task id and status are
hostile), a sweep of two jobs (one finished, one still running) under a name that needs percent-encoding, and an
audit."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from harness.audit.audit_model import AuditReport, SkippedSource
from harness.audit.source_audit import SourceAudit
from harness.records import Manifest, TrialLog, write_manifest
from harness.report import write_report
from harness.report.sweep import write_sweep_report
from harness.records.sweep_job import SweepJob
from tests.harness.factories import make_record
from tests.harness.report.html.pages import MUG, write_small_run

# A task id and a status that would be markup, a link, a control sequence and a reordering if written raw.
HOSTILE_TASK = '<img src=x onerror="window.__pwned=1">\x1b[31mtrap-task\u202e\n[open](javascript:alert(1))'
HOSTILE_STATUS = '</td><script>window.__pwned=2</script>\x01finished'
SWEEP = "sweep 50%"
SWEEP_TASK = [
    "experiment=default",
    "strategy=self_diagnosis,no_memory",
    "++experiment.trials=2",
]
MULTIRUN = (
    "hydra:\n"
    "  sweep:\n    dir: somewhere\n    subdir: ${hydra.job.num}\n"
    "  sweeper:\n    _target_: hydra._internal.core_plugins.basic_sweeper.BasicSweeper\n    params: null\n"
    "  overrides:\n    task:\n" + "".join(f"    - {entry}\n" for entry in SWEEP_TASK)
)
STARTED = datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc)


def manifest(conditions: list[str], tasks: list[str], trials: int, status: str) -> Manifest:
    config = {
        "env": {"name": "alfworld"},
        "conditions": [{"name": c, "actor": {"name": "m"}, "reflector": {"name": "m"}} for c in conditions],
        "experiment": {"trials": trials},
    }
    return Manifest(
        config=config,
        package_versions={},
        git_commit=None,
        data_hashes={},
        tasks=tasks,
        started_at=STARTED,
        status=status,
    )


def write_plain_run(run_dir: Path) -> Path:
    """pages.py's small run (four trials of MUG, the last won, metrics.json), finished, with its report."""
    write_small_run(run_dir)
    write_manifest(run_dir, manifest(["self_diagnosis"], [MUG], 4, "finished"))
    write_report([run_dir], run_dir, plots=False)  # the index links a run's report, never its pictures
    return run_dir


def write_hostile_run(run_dir: Path) -> Path:
    """One unsolved trial of HOSTILE_TASK under a manifest whose status is HOSTILE_STATUS; no metrics, no report."""
    TrialLog(run_dir).append(make_record(0, "Look in the drawer.", task=HOSTILE_TASK))
    write_manifest(run_dir, manifest(["self_diagnosis"], [HOSTILE_TASK], 3, HOSTILE_STATUS))
    return run_dir


def write_sweep(sweep_dir: Path) -> Path:
    """multirun.yaml, job 0 finished (two trials), job 1 running (one of two trials), and the sweep's report."""
    sweep_dir.mkdir(parents=True)
    (sweep_dir / "multirun.yaml").write_text(MULTIRUN)
    jobs = []
    for num, (condition, status) in enumerate([("self_diagnosis", "finished"), ("no_memory", "running")]):
        job_dir = sweep_dir / str(num)
        log = TrialLog(job_dir)
        for trial in range(2 if status == "finished" else 1):
            log.append(make_record(trial, "Look in the drawer." if trial == 0 else None, task=MUG, condition=condition))
        job_manifest = manifest([condition], [MUG], 2, status)
        write_manifest(job_dir, job_manifest)
        overrides = [f"strategy={condition}"]
        jobs.append(SweepJob(num=num, overrides=overrides, directory=job_dir, config=job_manifest.config))
    write_sweep_report(jobs, sweep_dir, plots=False)
    return sweep_dir


def write_audit(audit_dir: Path) -> Path:
    """audit.json through the audit's own models, audit.md and audit.html beside it."""
    audit_dir.mkdir(parents=True)
    source = SourceAudit(
        domain="alfworld",
        source="alfworld_runs/root/reflexion_run_logs",
        n_tasks=2,
        n_with_memory=1,
        n_with_rrr=1,
        n_frozen=0,
        frozen_ratio_over_memory=0.0,
        frozen_ratio_over_rrr=0.0,
        avg_rrr_frozen=None,
        avg_rrr_with_rrr=0.0,
        reflections_in_frozen=0,
        spearman_rrr_vs_trials=[],
    )
    skipped = SkippedSource(source="webshop_runs/x", domain="webshop", format="text", reason="no importer")
    report = AuditReport(
        logs_dir="logs", env_to_game="map.json", sources=[source], skipped=[skipped], object_mention=[]
    )
    (audit_dir / "audit.json").write_text(report.model_dump_json())
    (audit_dir / "audit.md").write_text("# Audit\n")
    (audit_dir / "audit.html").write_text("<!DOCTYPE html><title>audit</title>")
    return audit_dir


def write_results(root: Path) -> Path:
    """The whole folder: audit/, runs/hostile, runs/plain and the sweep."""
    write_audit(root / "audit")
    write_hostile_run(root / "runs" / "hostile")
    write_plain_run(root / "runs" / "plain")
    write_sweep(root / SWEEP)
    return root
