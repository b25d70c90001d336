"""One run: validate, plan, build the models, loop, and leave trials, manifest and summary behind."""

from __future__ import annotations

import errno
import logging
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from harness.run.config import Condition, RunConfig
from harness.run.diagnosis_stage import diagnose_run, run_rules
from harness.run.held_out import (
    SelectionReading, compare_with_selection, frozen_in, kept_selection, warn_greedy_roles,
)
from harness.domains.base import Domain
from harness.domains.registry import identity_rule, mention_rules
from harness.reflection.gated_memory import GatedMemory
from harness.llm import CacheStore
from harness.llm.naming import model_name
from harness.llm.pool import LLMPool
from harness.metrics.cost import condition_prices
from harness.metrics.diagnosis.summary import with_diagnosis
from harness.metrics.run import run_metrics, write_metrics
from harness.metrics.thresholds import Thresholds
from harness.records import Manifest, RunPlan, TrialLog, write_manifest
from harness.records.diagnosis_log import read_diagnosis
from harness.records.whole_file import remove_stale_temporaries, write_whole
from harness.reflection import ReflectionSource, get_source
from harness.errors import LogChangedError, RecordWriteError, RunDirLostError, RunInterrupted
from harness.run.interrupt import StopRequest, stop_on_signals
from harness.run.insights_stage import InsightsStage, planted
from harness.run.lock import RunLock
from harness.run.loop import ConditionRun, LoopSettings, run_loop
from harness.run.progress import Progress
from harness.run.provenance import git_commit, package_versions
from harness.run.resume import GATE_DIR, check_data_unchanged, resume_config
from harness.run.run_on_watch import warn_run_on_totals
from harness.run.tracking import track_run

if TYPE_CHECKING:
    from harness.report.summary import RunSummary

log = logging.getLogger(__name__)


def condition_gate(condition: Condition, source: ReflectionSource, run_dir: Path) -> GatedMemory | None:
    """The gate store of a gated condition (`<run_dir>/gate/<condition>/`), or None for the others."""
    if not source.needs_gate:
        return None
    policy = source.options.policy  # type: ignore[attr-defined]  # a source that needs a gate has a policy
    return GatedMemory(run_dir / GATE_DIR / condition.name, policy, source.memory_window)


def condition_run(
    condition: Condition, pool: LLMPool, run_dir: Path, plant: tuple[str, str] | None = None
) -> ConditionRun:
    source = get_source(condition.source)(condition.memory_window, condition.options)
    actor_llm = pool.get("actor", condition.actor)
    return ConditionRun(
        gate=condition_gate(condition, source, run_dir),
        name=condition.name,
        source=source,
        actor_llm=actor_llm,
        reflector_llm=pool.get("reflector", condition.reflector) if source.uses_memory else actor_llm,
        actor_model=model_name(condition.actor),
        reflector_model=model_name(condition.reflector) if source.uses_memory else "none",
        reflector_stop=tuple(condition.reflector.reflector_stop),
        planted=plant,
    )


class Experiment:
    """A planned run of a validated config, its domain and its selection run (harness/run/preparation.py prepares them
    as a `PreparedRun`): models set up, earlier records read. What can still fail on bad input (the run directory's
    records) fails here, before anything is written; the domain is the experiment's to close from here on.
    """

    def __init__(self, config: RunConfig, domain: Domain, selection: SelectionReading | None, run_dir: Path) -> None:
        self.config = config
        self.run_dir = run_dir
        self.domain = domain
        self.selection_read = selection  # env.frozen_in's run as compose.py read it for the domain's tasks, or None
        try:
            # What the loop's trials need gets ready while the models are set up and the run directory is checked:
            # for as many episodes as can play at once (one game of one condition never overlaps another episode).
            playable = len(config.conditions) * len(self.domain.task_ids()) * config.experiment.repeats
            self.domain.warm_up(min(config.experiment.max_concurrency, playable))
            self._prepare(config, run_dir)
        except BaseException:
            self.domain.close()
            raise
        self.settings = LoopSettings(
            trials=config.experiment.trials,
            max_concurrency=config.experiment.max_concurrency,
            seed=config.experiment.seed,
            repeats=config.experiment.repeats,
            sampling=config.sampling,
        )
        self.plan = RunPlan(
            conditions=[c.name for c in config.conditions],
            tasks=self.domain.task_ids(),
            trials=config.experiment.trials,
            repeats=config.experiment.repeats,
        )

    def _prepare(self, config: RunConfig, run_dir: Path) -> None:
        # One store per run: every model reads the same file, so it is loaded once.
        models = [model for c in config.conditions for model in (c.actor, c.reflector)]
        pool = LLMPool(CacheStore(Path(config.llm.cache.path)), config.llm.cache.mode, models)
        self.conditions = [condition_run(condition, pool, run_dir, planted(config)) for condition in config.conditions]
        # The lock comes before anything in the run directory is read: what a resume checks (the manifest, the
        # records) must be what it then builds on, not what another process is about to change.
        self.lock = RunLock.acquire(run_dir)
        try:
            # trials.jsonl read once: counted by the resume checks, then the records the run builds on.
            self.trial_log = TrialLog(run_dir, guard=self.lock.ensure_held, repair=False)
            recorded = len(self.trial_log.records)
            self.previous, self.resolved = resume_config(run_dir, config.model_dump(mode="json"), recorded)
            self.data_hashes = self.domain.data_hashes()
            self.resolved = check_data_unchanged(self.previous, self.data_hashes, self.resolved)
            self.selection, self.resolved = kept_selection(
                self.selection_read, self.previous, self.domain.task_ids(), self.resolved
            )
            # The first write into the run directory: a torn last line of trials.jsonl is cut.
            self.trial_log.repair()
            remove_stale_temporaries(run_dir)  # an earlier invocation killed while writing an output left them
            self.insights: InsightsStage | None = None
            if config.memory.scope != "trial":
                self.insights = InsightsStage(config, self.domain, pool, run_dir, self.lock.ensure_held)
            for condition in self.conditions:
                if condition.gate is not None:
                    condition.gate.check_chain()
                    condition.gate.check_recorded([r for r in self.trial_log.records if r.condition == condition.name])
        except BaseException:
            self.lock.release()
            raise

    def run(self) -> RunSummary:
        """Play every pending trial, then write metrics and summary; the run directory is released after.

        SIGINT or SIGTERM stops the run (RunInterrupted): no further trial starts, and the manifest says interrupted.
        """
        try:
            with stop_on_signals() as stop:
                return self._run(stop)
        except OSError as error:  # a full disk, a filesystem gone read-only, a path taken: the records so far are whole
            raise RecordWriteError(f"writing the run failed ({error}); {_write_advice(error)}") from error
        finally:
            self.close()

    def close(self) -> None:
        """Stop the domain's engines and release the run directory; run() does it as it ends."""
        self.domain.close()
        self.lock.release()

    def _run(self, stop: StopRequest) -> RunSummary:
        """The run itself; the manifest records how it ended (and the run that selected its tasks, if one did)."""
        if frozen_in(self.config) is not None:
            warn_greedy_roles(self.config)
        manifest = Manifest(
            selection=self.selection,
            config=self.resolved,
            package_versions=package_versions(),
            git_commit=git_commit(),
            data_hashes=self.data_hashes,
            tasks=self.plan.tasks,
            started_at=self.previous.started_at if self.previous else datetime.now(timezone.utc),
            resumed_from=len(self.trial_log.records),
        )
        write_manifest(self.run_dir, manifest)
        if self.trial_log.records:
            log.info("resuming: %d trial(s) already recorded", len(self.trial_log.records))
        prices = condition_prices(self.resolved)  # the progress line's cost so far and the summary's
        progress = Progress(
            self.settings.trials,
            self.config.progress,
            interval_s=self.config.progress_interval_s,
            prices=prices,
        )
        try:
            run_loop(self.domain, self.conditions, self.trial_log, self.settings, progress, stop)
            if self.insights is not None:  # memory.scope insights or both: the libraries, then their evaluation
                self.insights.run(self.conditions, self.trial_log.records, self.settings, partial(
                    Progress, enabled=self.config.progress, interval_s=self.config.progress_interval_s, prices=prices,
                ), stop)
            if self.config.metrics.diagnosis:  # before "finished": a run killed here resumes to complete it
                diagnose_run(self.run_dir, self.trial_log.records, run_rules(self.domain))
            # Imported once the trials are done: the report's plots (matplotlib) would cost every start, killed
            # and resumed ones included, most of a second.
            from harness.report import finished_run, write_report
            from harness.report.summary import SUMMARY_FILE, summarize, summary_markdown

            if manifest.selection is not None and self.selection_read is not None:
                compared = compare_with_selection(
                    manifest.selection, self.trial_log.records, self.settings.seed, self.selection_read
                )
                manifest = manifest.model_copy(update={"selection": compared})
            # Metrics and summary come before "finished": a run killed while writing them must not claim to
            # be done, or no one would resume it to complete them.
            self.lock.ensure_held()
            records = self.trial_log.records
            target, mentions = mention_rules(self.domain.name)
            targets = {task: target(task) for task in self.plan.tasks or ()}
            thresholds = Thresholds.model_validate(self.config.metrics.model_dump())
            metrics = run_metrics(records, self.plan, targets, mentions, identity_rule(self.domain.name), thresholds)
            metrics = with_diagnosis(metrics, read_diagnosis(self.run_dir))
            write_metrics(self.run_dir, metrics)
            warn_run_on_totals(metrics)
            summary = summarize(records, self.plan, prices)
            write_whole(self.run_dir / SUMMARY_FILE, summary_markdown(summary, metrics, self.config, prices))
            ended = {"status": "finished", "ended_at": datetime.now(timezone.utc), "records": len(records)}
            finished = manifest.model_copy(update=ended)
            # The report shows the finished manifest, but is written before it: a report that could not be
            # written (a full disk) leaves a run that failed, which the same command completes.
            self.lock.ensure_held()
            written = finished_run(self.run_dir, finished, records, self.plan, metrics)
            write_report([self.run_dir], self.run_dir, runs=[written], plots=self.config.report.plots)
        except BaseException as error:
            if isinstance(error, (RunDirLostError, LogChangedError)):
                raise  # the directory may be another process's now: nothing more is written into it
            # KeyboardInterrupt: a second signal, which stops at once.
            stopped = isinstance(error, (RunInterrupted, KeyboardInterrupt))
            ended = {
                "status": "interrupted" if stopped else "failed",
                "ended_at": datetime.now(timezone.utc),
                "records": len(self.trial_log.records),
            }
            try:
                write_manifest(self.run_dir, manifest.model_copy(update=ended))
            except OSError as unwritten:  # the disk that failed the run may refuse this too: the first error counts
                log.warning("the manifest could not be marked %s (%s)", ended["status"], unwritten)
            raise
        self.lock.ensure_held()
        write_manifest(self.run_dir, finished)
        track_run(self.config.tracking, self.resolved, self.run_dir, metrics)  # after every file it copies; off by default
        return summary


def _write_advice(error: OSError) -> str:
    """What to do about a failed write: room for a full disk, else the path that could not be written."""
    kept = "every trial recorded before it is kept"
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{kept}: make room and run the same command to resume."
    if error.errno == errno.EROFS:
        return f"{kept}: make the filesystem writable and run the same command to resume."
    where = f" {error.filename}" if error.filename else ""
    return f"{kept}: move away what is in the way of{where} or make it writable, and run the same command to resume."
