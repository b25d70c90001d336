"""The plant-and-trace study: ExpeL rule libraries built over each seed's training tasks, with one planted reflection
of each kind and with and without the rule-write gate, every library kept as a record for the trace.

Each seed draws its training tasks from the pool and orders them (the fold: the rest of the published run is its
evaluation). The plant replaces the reflection of one training task's failed trial, so a planted build asks the
same critiques as the clean build of its seed up to the planted task's compare critique, and the cache answers
those. The experience is handed in (the published log is read by harness/audit, a layer above).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.llm import CachedLLM, CacheStore, CallContext, ChatMessage, ModelConfig, chat_request, create_backend
from harness.llm.metering import MeteredLLM
from harness.records.insights import ExperienceTask
from harness.records.propagation import Plant, PlantKind, PropagationBuild, PropagationStudy, StudyTask
from harness.records.whole_file import write_whole
from harness.reflection.insights import InsightsOptions, plan_critiques
from harness.reflection.insights.rule_gate import gated_extract
from harness.reflection.insights.trace import RESULT_FILE, markers
from harness.run.config import PropagationConfig
from harness.run.lock import RunLock

DOMAIN = "alfworld"


def own_text(task: ExperienceTask) -> str:
    """A task's own text: its sentence and its trials' trajectories (not its reflections)."""
    return "\n".join([task.task, *(trial.trajectory for trial in task.trials)])


def _reflection(task: ExperienceTask) -> str:
    return next(trial.reflection or "" for trial in task.trials if not trial.success)


def training_text(order: Sequence[ExperienceTask], planted: ExperienceTask) -> str:
    """What a plant's markers are measured against: the planted task's own text, every training task's sentence and
    every other reflection. A marker is an entity none of these names, so it reaches a rule from the plant, or from
    another task's trajectory (expert plays name most objects of their rooms): the clean build's null counts those."""
    parts = [own_text(planted), *(task.task for task in order)]
    parts += [t.reflection or "" for task in order if task.id != planted.id for t in task.trials]
    return "\n".join(parts)


def plant_text(kind: PlantKind, planted: ExperienceTask, order: Sequence[ExperienceTask], vacuous: str,
               donors: Mapping[str, str], seed: int) -> tuple[str | None, str | None]:
    """(the reflection planted, its donor task). off_task is cross-paired: the reflection of a published task outside
    the training order (donors, drawn in the seed's order) with a marker (`training_text`)."""
    if kind == "none":
        return None, None
    if kind == "correct":
        return _reflection(planted), None
    if kind == "vacuous":
        return vacuous, None
    training = {task.id for task in order}
    reference = training_text(order, planted)
    candidates = sorted(donor for donor in donors if donor not in training)
    random.Random(seed).shuffle(candidates)
    for donor in candidates:
        if markers(donors[donor], reference):
            return donors[donor], donor
    raise ValueError(f"no donor reflection names an entity absent from the training text of {planted.id}.")


def planted_experience(order: Sequence[ExperienceTask], planted: str, text: str | None) -> list[ExperienceTask]:
    """The order's experience with the planted task's failed trial showing `text` as its reflection."""
    out = []
    for task in order:
        if task.id == planted:
            trials = [t if t.success else t.model_copy(update={"reflection": text}) for t in task.trials]
            task = task.model_copy(update={"trials": trials})
        out.append(task)
    return out


def run_propagation(scenario: PropagationConfig, model: ModelConfig, pool: Sequence[StudyTask],
                    evaluation: dict[str, str], donors: Mapping[str, str], reads: str, source: str,
                    run_dir: Path) -> PropagationStudy:
    """Every build of the design, written to RUN_DIR/propagation.json; `donors`: task id -> the reflection an
    off_task plant may take (published tasks; those in a seed's training order are never drawn)."""
    if len(pool) < scenario.training_tasks:
        raise ValueError(f"the pool holds {len(pool)} training tasks, fewer than {scenario.training_tasks}.")
    lock = RunLock.acquire(run_dir)
    try:
        llm = CachedLLM(create_backend(model), CacheStore(Path(scenario.cache.path)), scenario.cache.mode)
        builds = [build for seed in scenario.seeds
                  for build in _seed_builds(scenario, llm, pool, evaluation, donors, seed)]
        study = PropagationStudy(model=model.name, source=source, reads=reads, tasks=list(pool), builds=builds)
        write_whole(run_dir / RESULT_FILE, study.model_dump_json(indent=1) + "\n")
        return study
    finally:
        lock.release()


def _seed_builds(scenario: PropagationConfig, llm: CachedLLM, pool: Sequence[StudyTask], evaluation: dict[str, str],
                 donors: Mapping[str, str], seed: int) -> list[PropagationBuild]:
    chosen = random.Random(seed).sample(list(pool), scenario.training_tasks)
    order = [task.experience for task in chosen]
    planted = order[scenario.plant_task]
    held_out = [game for env, game in evaluation.items() if env not in {task.experience.id for task in chosen}]
    options = InsightsOptions(read_reflections=True)
    reference = training_text(order, planted)
    # The plants depend on the seed alone: the donor is drawn once for both gates.
    plants = [(kind, *plant_text(kind, planted, order, scenario.vacuous, donors, seed)) for kind in scenario.plants]
    builds = []
    for gate in scenario.gates:
        for kind, text, donor in plants:
            experience = planted_experience(order, planted.id, text)
            planned = plan_critiques(experience, DOMAIN, random.Random(seed), options)
            step = next(i for i, p in enumerate(planned) if p.critique.kind == "compare" and p.task == planted.task)
            context = CallContext(task_id=planted.id, trial=0, condition=f"{kind}-gate" if gate else kind,
                                  role="reflector")

            def ask(messages: list[ChatMessage], context: CallContext = context) -> str:
                request = chat_request(messages, scenario.max_tokens, seed)
                return MeteredLLM(llm, context).generate(request).text

            ledger, refusals = gated_extract(planned, experience, ask, DOMAIN, gate, options.max_num_rules)
            plant = Plant(kind=kind, task_id=planted.id, step=step, text=text, donor=donor,
                          markers=markers(text, reference))
            builds.append(PropagationBuild(seed=seed, gate=gate, plant=plant, training=[t.id for t in order],
                                           evaluation=held_out, ledger=ledger, refusals=refusals))
    return builds
