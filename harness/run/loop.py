"""The Reflexion loop: trials x conditions x unsolved tasks through a bounded pool, one durable record each."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.base import Domain
from harness.domains.registry import identity_rule
from harness.errors import RunInterrupted
from harness.reflection.gated_memory import GatedMemory
from harness.llm import CachedLLM, CallContext, LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM, calls_in_order
from harness.records import Timing, TrialLog, TrialRecord
from harness.reflection import Reflection, ReflectionInput, ReflectionSource, checked_reflection
from harness.run.config import RoleSampling, SamplingSettings
from harness.run.interrupt import STOP_GRACE_S, StopRequest
from harness.run.memory import memory_window
from harness.run.progress import Progress
from harness.run.run_on_watch import RunOnWatch
from harness.run.sampling import sampled
from harness.records.trial_count import TrialCount
from harness.run.workers import play_side_by_side


class LoopSettings(BaseModel):
    """What the loop needs from the run configuration."""

    model_config = ConfigDict(frozen=True)

    trials: int
    max_concurrency: int
    seed: int
    repeats: int = Field(1, ge=1, description="Independent chains of trials per (task, condition).")
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)


@dataclass(frozen=True)
class ConditionRun:
    """A condition ready to play: its reflection source and the two models it uses."""

    name: str
    source: ReflectionSource
    actor_llm: CachedLLM
    reflector_llm: CachedLLM
    actor_model: str
    reflector_model: str
    reflector_stop: tuple[str, ...] = ()
    """Stop strings added to the reflector's completion requests (its model's `reflector_stop`)."""
    gate: GatedMemory | None = None
    """Gated conditions: the gate their reflections pass through and their actor's memory comes from."""
    planted: tuple[str, str] | None = None
    """(task, reflection): `insights.plant`, read first in that task's memory in every trial."""

    def memory(self, task_id: str, trial: int, repeat: int, history: TaskHistory) -> list[str]:
        """The reflections the actor and reflector read in this trial."""
        window = self._window(task_id, trial, repeat, history)
        if self.planted is not None and self.planted[0] == task_id:
            return [self.planted[1], *window]
        return window

    def _window(self, task_id: str, trial: int, repeat: int, history: TaskHistory) -> list[str]:
        if self.gate is not None:
            return self.gate.window(gate_scope(task_id, repeat), before_trial=trial)
        if not self.source.uses_memory:
            return []
        return memory_window(history.reflections, self.source.memory_window)


def gate_scope(task_id: str, repeat: int) -> str:
    """A gate store's scope for one chain: the task in repeat 0 (as before repeats existed), its own one after."""
    return task_id if repeat == 0 else f"{task_id} (repeat {repeat})"


class TaskHistory(BaseModel):
    """What earlier trials of one task under one condition, in one repeat, left behind."""

    records: list[TrialRecord]
    reflections: list[str]
    finished: bool


def trial_seed(run_seed: int, trial: int, repeat: int = 0) -> int:
    """The sampling seed of one trial's requests: the run's seed in trial 0, its own one in every later trial.

    Reflexion asked the model afresh in every trial. The seed is part of each request and of its cache key, so
    under `llm.cache.mode=auto` trial t is a new sample, never a replay of trial 0's answer to the same prompt.
    Trial 0's requests are the same in every condition and stay shared: common random numbers. A repeat r > 0 of
    the chain derives every seed from (run seed, repeat, trial), so its requests are new samples too; repeat 0 keeps
    the seeds runs had before repeats existed, so their caches still answer.
    """
    if trial == 0 and repeat == 0:
        return run_seed
    chain = f"{run_seed}/{trial}" if repeat == 0 else f"{run_seed}/{repeat}/{trial}"
    digest = hashlib.sha256(chain.encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1  # 31 bits: a seed every backend accepts


def task_history(
    records: Sequence[TrialRecord], task_id: str, condition: str, before_trial: int, domain: Domain, repeat: int = 0
) -> TaskHistory:
    """Records, reflections (in trial order) and whether the task is over, from the chain's trials before one."""
    mine = sorted(
        (
            r
            for r in records
            if r.task_id == task_id and r.condition == condition and r.repeat == repeat and r.trial < before_trial
        ),
        key=lambda r: r.trial,
    )
    return TaskHistory(
        records=mine,
        reflections=[r.reflection for r in mine if r.reflection is not None],
        finished=any(domain.finished(r.success, r.end_reason) for r in mine),
    )


class TrialAbandoned(Exception):
    """Raised inside a trial that a stopped run left behind, at its next model call: it records nothing."""


class TrialLLM(MeteredLLM):
    """A trial's metered model: its role's sampling on every request, no call once the run left the trial behind."""

    def __init__(
        self,
        llm: CachedLLM,
        context: CallContext,
        abandoned: threading.Event,
        extra_stop: Sequence[str] = (),
        sampling: RoleSampling | None = None,
        on_call: Callable[[Usage], None] | None = None,
    ) -> None:
        super().__init__(llm, context, extra_stop)
        self._abandoned = abandoned
        self._sampling = sampling or RoleSampling()
        self._on_call = on_call

    def generate(self, request: LLMRequest) -> LLMResponse:
        if self._abandoned.is_set():
            raise TrialAbandoned(f"{self.context.describe()}: the run stopped; this trial is played again on resume")
        response = super().generate(sampled(request, self._sampling))
        if self._on_call is not None:
            self._on_call(response.usage)
        return response


def play_trial(
    domain: Domain,
    task_id: str,
    trial: int,
    history: TaskHistory,
    condition: ConditionRun,
    settings: LoopSettings,
    progress: Progress,
    abandoned: threading.Event | None = None,
    repeat: int = 0,
) -> TrialRecord:
    """Play one trial of one task under one condition (in one repeat) and reflect on it if it failed.

    Once `abandoned` is set (the run stopped and left this trial behind), its next model call raises TrialAbandoned.
    """
    started = time.perf_counter()
    source = condition.source
    window = condition.memory(task_id, trial, repeat, history)
    seed = trial_seed(settings.seed, trial, repeat)
    last_trial = trial == settings.trials - 1
    abandoned = abandoned or threading.Event()
    named_repeat = repeat if settings.repeats > 1 else None
    context = CallContext(task_id=task_id, trial=trial, condition=condition.name, role="actor", repeat=named_repeat)
    progress.episode_started()
    actor = TrialLLM(
        condition.actor_llm,
        context,
        abandoned,
        sampling=settings.sampling.actor,
        on_call=partial(progress.call_made, condition.name, "actor"),
    )
    reflector = TrialLLM(
        condition.reflector_llm,
        context.model_copy(update={"role": "reflector"}),
        abandoned,
        condition.reflector_stop,
        settings.sampling.reflector,
        partial(progress.call_made, condition.name, "reflector"),
    )
    attempt = domain.play(
        task_id,
        window,
        history.records,
        actor,
        seed,
        on_step=lambda step: progress.step(f"{condition.name} {task_id}", trial, step),
        last_trial=last_trial,
    )
    reflection = Reflection(text=None)
    reflects = domain.reflects_after_last_trial or not last_trial
    if reflects and not domain.finished(attempt.success, attempt.end_reason):
        reflecting = ReflectionInput(
            domain=domain.name,
            task_id=task_id,
            task_text=attempt.task_text,
            scenario=attempt.scenario,
            trajectory=attempt.trajectory,
            end_reason=attempt.end_reason,
            max_steps=domain.max_steps,
            evidence=attempt.details,
            memory=window,
            seed=seed,
        )
        reflection = checked_reflection(
            lambda: source.reflect(reflecting, domain.reflection, reflector), source, condition.name, task_id, trial
        )
        if condition.gate is not None:
            reflection = condition.gate.admit(gate_scope(task_id, repeat), trial, reflection)
    meters = (actor, reflector)
    record = TrialRecord(
        task_id=task_id,
        condition=condition.name,
        trial=trial,
        repeat=repeat,
        success=attempt.success,
        end_reason=attempt.end_reason,
        steps=len(attempt.trajectory),
        task_text=attempt.task_text,
        trajectory=attempt.trajectory,
        memory=window,
        reflection=reflection.text,
        reflection_details=reflection.details,
        attempt_details=attempt.details,
        actor_model=condition.actor_model,
        reflector_model=condition.reflector_model,
        usage=sum((m.usage for m in meters), Usage()),
        actor_usage=actor.usage,
        reflector_usage=reflector.usage,
        llm_calls=sum(m.calls for m in meters),
        cache_hits=sum(m.cache_hits for m in meters),
        retries=sum(m.retries for m in meters),
        llm_latency_s=round(sum(m.latency_s for m in meters), 6),
        calls=calls_in_order(actor, reflector),
        timing=Timing(
            wall_s=time.perf_counter() - started,
            env_s=attempt.env_s,
            env_cpu_s=attempt.env_cpu_s,
            llm_s=sum(m.wait_s for m in meters),
            engine_wait_s=attempt.env_wait_s,
        ),
    )
    identity = identity_rule(domain.name)
    return record.model_copy(update={"reflection_identity": identity(record) if identity is not None else None})


PendingTrial = tuple[ConditionRun, str, int, TaskHistory]
"""A trial to play: its condition, task, repeat, and what the chain's earlier trials left."""


def pending_trials(
    domain: Domain, conditions: Sequence[ConditionRun], trial_log: TrialLog, trial: int, repeats: int = 1
) -> list[PendingTrial]:
    """(condition, task, repeat) still to play in this trial, condition by condition: not recorded, not over."""
    done = trial_log.keys()
    # Each chain's records picked out once: a study's thousands of chains would otherwise each scan every record.
    chains: dict[tuple[str, str, int], list[TrialRecord]] = {}
    for record in trial_log.records:
        chains.setdefault((record.task_id, record.condition, record.repeat), []).append(record)
    pending = []
    for condition in conditions:
        for repeat in range(repeats):
            for task_id in domain.task_ids():
                if (task_id, condition.name, trial, repeat) in done:
                    continue
                chain = chains.get((task_id, condition.name, repeat), [])
                history = task_history(chain, task_id, condition.name, trial, domain, repeat)
                if not history.finished:
                    pending.append((condition, task_id, repeat, history))
    return pending


def plan_count(
    domain: Domain, conditions: Sequence[ConditionRun], trial_log: TrialLog, settings: LoopSettings
) -> TrialCount:
    """The run's chains (condition x repeat x task) with what the run directory already holds of them."""
    tasks = domain.task_ids()
    chains = [(c.name, task, repeat) for c in conditions for repeat in range(settings.repeats) for task in tasks]
    return TrialCount(chains, settings.trials, lambda r: domain.finished(r.success, r.end_reason), trial_log.records)


def run_loop(
    domain: Domain,
    conditions: Sequence[ConditionRun],
    trial_log: TrialLog,
    settings: LoopSettings,
    progress: Progress,
    stop: StopRequest | None = None,
) -> None:
    """Run every trial of every condition; records are appended by this thread only, as trials finish.

    Trial t of every condition and repeat runs before trial t + 1 of any, so an interrupted study has
    comparable progress in all conditions. A stop request starts no further trial: the running ones get
    STOP_GRACE_S seconds to finish and be recorded, then RunInterrupted is raised.
    """
    stop = stop or StopRequest()
    abandoned = threading.Event()
    watch = RunOnWatch()

    def record(finished: TrialRecord) -> None:
        trial_log.append(finished)
        progress.trial_done(finished)
        watch.saw(finished)

    finished_after_stop = 0
    try:
        with progress.running(plan_count(domain, conditions, trial_log, settings), trial_log.records):
            for trial in range(settings.trials):
                pending = pending_trials(domain, conditions, trial_log, trial, settings.repeats)
                if not pending:
                    continue
                if stop.is_set():
                    raise _interrupted(stop, finished_after_stop, 0, trial_log)
                progress.trial_started(trial, len(pending))
                play = partial(play_trial, domain, settings=settings, progress=progress, abandoned=abandoned)
                jobs = [
                    partial(play, task_id, trial, history, condition, repeat=repeat)
                    for condition, task_id, repeat, history in pending
                ]
                played = play_side_by_side(jobs, settings.max_concurrency, record, stop, STOP_GRACE_S)
                finished_after_stop += played.after_stop
                if played.left_behind or played.not_started:
                    raise _interrupted(stop, finished_after_stop, played.left_behind, trial_log)
    finally:
        # Trials left behind stop at their next model call, and write nothing more into a gate store.
        abandoned.set()
        for condition in conditions:
            if condition.gate is not None:
                condition.gate.close()


def _interrupted(stop: StopRequest, finished: int, dropped: int, trial_log: TrialLog) -> RunInterrupted:
    received = stop.signal
    assert received is not None, "interrupted without a stop signal"
    return RunInterrupted(
        signal_name=received.name,
        signal_number=received.value,
        finished=finished,
        dropped=dropped,
        recorded=len(trial_log.records),
    )
