"""The run's insight stage (memory.scope insights or both): after the training trials, per condition and fold,
ExpeL's rule library built by the critic and recorded in insights.jsonl, then the fold's tasks played with it in
their prompt and recorded in evaluation.jsonl.

Both logs follow the trial log's rules, so a killed run resumes: the critiques already recorded are replayed (their
answers, not the model), the next one is asked (the LLM cache answers one asked before the kill), and the evaluation
trials resume as trials do. The critic is the condition's actor model, as ExpeL's code has it (its paper's runs
extract insights with a stronger model: `insights.critic_model` names one), asked through the run's pool.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Callable, Sequence
from typing import cast
from pathlib import Path

from harness.domains.base import Attempt, Domain
from harness.errors import ConfigError, LogChangedError, RunInterrupted
from harness.llm import CallContext, LLMRequest, ModelConfig
from harness.llm.metering import MeteredLLM
from harness.llm.pool import LLMPool
from harness.metrics.semantic import load_embedder
from harness.records import TrialLog, TrialRecord
from harness.records.insights import ExperienceTask, InsightsLedger
from harness.records.insights_log import (
    EVALUATION_FILE,
    CritiqueAnswered,
    InsightsLine,
    LibraryOpened,
    PlantRecord,
    insights_log,
)
from harness.reflection import get_source
from harness.reflection.insights import (
    ExpelDomain,
    apply_answer,
    critique_messages,
    experience_tasks,
    PlannedCritique,
    plan_critiques,
    rules_message,
    split_folds,
)
from harness.run.config import RunConfig
from harness.run.interrupt import StopRequest
from harness.run.loop import ConditionRun, LoopSettings, run_loop
from harness.run.progress import Progress
from harness.run.retrieved_examples import retrieved_examples

log = logging.getLogger(__name__)


class EvaluationDomain(Domain):
    """One fold's tasks of a domain, its actor reading the fold's rules; ExpeL's evaluation writes no reflection
    unless Reflexion's trials go on (scope both)."""

    def __init__(self, domain: Domain, tasks: Sequence[str], rules: str, reflects: bool) -> None:
        self.inner = domain.with_rules(rules)
        self.tasks = list(tasks)
        self.name, self.max_steps, self.reflection = domain.name, domain.max_steps, domain.reflection
        self.reflects_after_last_trial = reflects and domain.reflects_after_last_trial
        self.rules = rules

    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def play(self, task_id: str, window: list[str], earlier: Sequence[TrialRecord], actor: MeteredLLM, seed: int,
             on_step: Callable[[int], None], last_trial: bool) -> Attempt:
        return self.inner.play(task_id, window, earlier, actor, seed, on_step, last_trial)

    def finished(self, success: bool, end_reason: str) -> bool:
        return self.inner.finished(success, end_reason)

    def data_hashes(self) -> dict[str, str]:
        return self.inner.data_hashes()


def planted(config: RunConfig) -> tuple[str, str] | None:
    """(task, reflection) of `insights.plant`, or None."""
    plant = config.insights.plant
    return None if plant is None else (plant.task, plant.reflection)


def check_insights(config: RunConfig, domain: Domain) -> None:
    """Raise ConfigError for what the config alone could not check: the folds against the tasks, the planted task,
    a gated condition."""
    if config.memory.scope == "trial":
        return
    folds, tasks = config.insights.folds, len(domain.task_ids())
    if folds > tasks:
        # ExpeL deals the tasks round the folds: a fold beyond the task count is evaluated on nothing.
        accepted = f"accepted: 2 to {tasks}" if tasks >= 2 else "memory.scope=insights needs at least 2 tasks"
        raise ConfigError(
            f"insights.folds = {folds} is invalid: the run has {tasks} task(s), and each fold is evaluated on a share "
            f"of them; {accepted}."
        )
    plant = config.insights.plant
    if plant is not None and plant.task not in domain.task_ids():
        raise ConfigError(
            f"insights.plant.task = {plant.task!r} is not among the run's tasks; accepted: {', '.join(domain.task_ids())}."
        )
    gated = [c.name for c in config.conditions if get_source(c.source).needs_gate]
    if gated:
        raise ConfigError(
            f"memory.scope={config.memory.scope} cannot play the gated condition {gated[0]}: its gate store holds the "
            "training trials of the tasks evaluated after them; leave it out or use memory.scope=trial."
        )


def _stop_between_critiques(stop: StopRequest | None, recorded: int) -> None:
    """A stop request asks no further critique: those recorded are kept, and the same command resumes."""
    received = None if stop is None or not stop.is_set() else stop.signal
    if received is not None:
        raise RunInterrupted(signal_name=received.name, signal_number=received.value, finished=0, dropped=0,
                             recorded=recorded)


class InsightsStage:
    """Libraries built and evaluated for every condition, resuming from what insights.jsonl already holds."""

    def __init__(self, config: RunConfig, domain: Domain, pool: LLMPool, run_dir: Path,
                 guard: Callable[[], None]) -> None:
        self.config, self.domain, self.pool, self.run_dir, self.guard = config, domain, pool, run_dir, guard
        self.kind = cast(ExpelDomain, domain.name)  # check_memory accepted the run's env as one of ExpeL's domains
        self.log = insights_log(run_dir, single_writer=True)
        self.lines = [line.root for line in self.log.repair()[0]]
        self.evaluation = TrialLog(run_dir, guard=guard, file=EVALUATION_FILE)
        self.recorded = 0  # training trials, named in a stop's message

    def run(self, conditions: Sequence[ConditionRun], training: Sequence[TrialRecord], settings: LoopSettings,
            progress: Callable[[int], Progress], stop: StopRequest) -> None:
        """Build each condition's library per fold, then play the fold's tasks with it."""
        insights = self.config.insights
        self.recorded = len(training)
        for condition in conditions:
            tasks = experience_tasks(training, condition.name, self.domain.task_ids())
            folds = split_folds(tasks, insights.folds, random.Random(insights.fold_seed))
            chosen = range(len(folds)) if insights.only_fold is None else [insights.only_fold]
            for fold in chosen:
                if not folds[fold]:
                    log.info("insights: fold %d of %s has no task to evaluate", fold, condition.name)
                    continue
                ledger = self.library(condition, fold, [t for t in tasks if t.id not in folds[fold]], folds[fold], stop)
                self.evaluate(condition, folds[fold], ledger, settings, progress, stop, tasks)

    def library(self, condition: ConditionRun, fold: int, training: list[ExperienceTask], evaluation: list[str],
                stop: StopRequest | None = None) -> InsightsLedger:
        """ExpeL's create_rules over the fold's training tasks, each answer recorded before the next is asked."""
        insights = self.config.insights
        planned = plan_critiques(training, self.kind, random.Random(self.config.experiment.seed), insights)
        plant = self.config.insights.plant
        opened = LibraryOpened(
            condition=condition.name, fold=fold, training_tasks=[t.id for t in training], evaluation_tasks=evaluation,
            max_num_rules=insights.max_num_rules, success_critique_num=insights.success_critique_num,
            read_reflections=insights.read_reflections, critiques=len(planned),
            plant=None if plant is None else PlantRecord(
                task=plant.task, reflection=plant.reflection, in_training=plant.task in {t.id for t in training}
            ),
        )
        mine = [line for line in self.lines if line.condition == condition.name and line.fold == fold]
        recorded = [line for line in mine if isinstance(line, LibraryOpened)]
        if recorded and recorded[0] != opened:
            raise LogChangedError(
                f"{self.log.path}: the library of {condition.name}, fold {fold}, was begun on other training trials or "
                "settings; move the run directory's insights.jsonl and evaluation.jsonl away to build it again."
            )
        if not recorded:
            self._append(opened)
        where = "" if opened.plant is None else (
            "; the planted task is " + ("a training task" if opened.plant.in_training else "evaluated, not read"))
        log.info("insights: %s fold %d: %d training task(s), %d critique(s), evaluating %s%s", condition.name, fold,
                 len(training), len(planned), ", ".join(evaluation), where)
        answers = sorted((line for line in mine if isinstance(line, CritiqueAnswered)), key=lambda line: line.step)
        ledger = InsightsLedger(max_num_rules=insights.max_num_rules)
        for step, item in enumerate(planned):
            if step < len(answers):
                if answers[step].critique != item.critique:
                    raise LogChangedError(
                        f"{self.log.path}: critique {step} of {condition.name}, fold {fold}, read other trials than "
                        "the run's records give; move insights.jsonl and evaluation.jsonl away to build it again."
                    )
                raw = answers[step].raw_answer
            else:
                _stop_between_critiques(stop, self.recorded)
                raw = self._ask(condition.name, fold, step, item, ledger)
            ledger = apply_answer(ledger, item.critique, raw)
        log.info("insights: %s fold %d: %d critiques, %d rules", condition.name, fold, len(planned), len(ledger.rules))
        return ledger

    def _ask(self, condition: str, fold: int, step: int, item: PlannedCritique, ledger: InsightsLedger) -> str:
        messages = critique_messages(item, [r.text for r in ledger.rules], self.kind, ledger.max_num_rules)
        request = LLMRequest(kind="chat", messages=messages, max_tokens=self.config.insights.critic_max_tokens,
                             temperature=0.0, seed=self.config.experiment.seed)
        context = CallContext(task_id=f"fold {fold}", trial=step, condition=condition, role="critic")
        # The condition's actor model, as ExpeL's code has it, or the critic's own; fetched when a critique is asked.
        critic = self.pool.get("critic", self._critic_model(condition))
        raw = critic.generate(request, context).text
        self._append(CritiqueAnswered(condition=condition, fold=fold, step=step, critique=item.critique,
                                      request=messages[0].content, raw_answer=raw))
        return raw

    def _append(self, entry: LibraryOpened | CritiqueAnswered) -> None:
        self.guard()
        self.log.append([InsightsLine(entry)])
        self.lines.append(entry)

    def _critic_model(self, condition: str) -> ModelConfig:
        actor = next(c.actor for c in self.config.conditions if c.name == condition)
        named = self.config.insights.critic_model
        if named is None:
            return actor
        threads = {"n_threads": self.config.llm.n_threads} if self.config.llm.n_threads is not None else {}
        return named.model_copy(update=threads)

    def evaluate(self, condition: ConditionRun, tasks: list[str], ledger: InsightsLedger, settings: LoopSettings,
                 progress: Callable[[int], Progress], stop: StopRequest,
                 experience: Sequence[ExperienceTask] = ()) -> None:
        """The fold's tasks with the rules before their prompt: one trial (ExpeL), or the run's trials (both); with
        `insights.fewshots=task_similarity`, each reading the examples retrieved for it from `experience`."""
        both = self.config.memory.scope == "both"
        rules = rules_message([rule.text for rule in ledger.rules], self.kind)
        domain = EvaluationDomain(self.domain, tasks, rules, reflects=both)
        if self.config.insights.fewshots == "task_similarity":
            examples = retrieved_examples(tasks, experience, self.kind, load_embedder())
            domain.inner = domain.inner.with_examples(examples)
            log.info("insights: %s: examples retrieved by task similarity for %d task(s)", condition.name, len(tasks))
        trials = settings.trials if both else 1
        evaluated = dataclasses.replace(condition, planted=None)
        run_loop(domain, [evaluated], self.evaluation, settings.model_copy(update={"trials": trials}),
                 progress(trials), stop)
