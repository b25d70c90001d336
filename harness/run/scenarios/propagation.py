"""The plant-and-trace study: ExpeL rule libraries built over each seed's training tasks, with planted reflections of
each kind at each plant step and with and without the rule-write gate, every library kept as a record for the trace.

Each seed draws its training tasks from the pool and orders them (the fold: the rest of the published run is its
evaluation). A plant replaces the reflection of the failed trial of the task at a plant step, so a planted build asks
the same critiques as the clean build of its seed up to that task's compare critique, and the cache answers those.
The experience is handed in (the published log is read by harness/audit, a layer above).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.domains.alfworld.target import target_object
from harness.errors import ConfigError
from harness.llm import CachedLLM, CacheStore, CallContext, ChatMessage, ModelConfig, chat_request, create_backend
from harness.llm.metering import MeteredLLM
from harness.records.propagation import RESULT_FILE, Plant, PropagationBuild, PropagationStudy, StudyTask
from harness.records.whole_file import write_whole
from harness.reflection.insights import ExpelDomain, InsightsOptions, plan_critiques
from harness.reflection.insights.library_trace import planted_experience
from harness.reflection.insights.rule_gate import gated_extract
from harness.run.config import PropagationConfig
from harness.run.lock import RunLock
from harness.run.scenarios.plants import PlantText, plant_texts

DOMAIN: ExpelDomain = "alfworld"
LENGTH_LIMIT = "length"
"""The finish reason of an answer that stopped at the critic's token limit."""


def run_propagation(scenario: PropagationConfig, model: ModelConfig, pool: Sequence[StudyTask],
                    evaluation: dict[str, str], donors: Mapping[str, str], reads: str, source: str,
                    run_dir: Path) -> PropagationStudy:
    """Every build of the design, written to RUN_DIR/propagation.json; `donors`: task id -> the reflection an
    off_task plant may take (published tasks; those in a seed's training order are never drawn)."""
    if len(pool) < scenario.training_tasks:
        raise ConfigError(
            f"scenario.training_tasks = {scenario.training_tasks} is invalid: the published log has {len(pool)} "
            f"training tasks (environments solved on their second trial); accepted: 2 to {len(pool)}."
        )
    lock = RunLock.acquire(run_dir)
    try:
        llm = CachedLLM(create_backend(model), CacheStore(Path(scenario.cache.path)), scenario.cache.mode)
        builds = [build for seed in scenario.seeds
                  for build in _seed_builds(scenario, llm, pool, evaluation, donors, seed)]
        study = PropagationStudy(model=model.name, source=source, reads=reads, tasks=list(pool),
                                 max_tokens=scenario.max_tokens, gate_locations=scenario.gate_locations,
                                 donors=dict(donors), builds=builds)
        write_whole(run_dir / RESULT_FILE, study.model_dump_json(indent=1) + "\n")
        return study
    finally:
        lock.release()


def _seed_plants(scenario: PropagationConfig, chosen: Sequence[StudyTask], donors: Mapping[str, str],
                 seed: int) -> list[tuple[int, PlantText]]:
    """(step, plant) of every plant of the seed: the plants depend on the seed alone, drawn once for both gates."""
    order = [task.experience for task in chosen]
    steps = list(dict.fromkeys(scenario.step_of(place) for place in scenario.plant_steps))
    return [(step, plant) for step in steps for kind in scenario.plants
            for plant in plant_texts(kind, order[step], target_object(chosen[step].game_id).lower(), order,
                                     scenario.vacuous, donors, seed, step, scenario.donors)]


def _seed_builds(scenario: PropagationConfig, llm: CachedLLM, pool: Sequence[StudyTask], evaluation: dict[str, str],
                 donors: Mapping[str, str], seed: int) -> list[PropagationBuild]:
    chosen = random.Random(seed).sample(list(pool), scenario.training_tasks)
    order = [task.experience for task in chosen]
    held_out = [game for env, game in evaluation.items() if env not in {task.experience.id for task in chosen}]
    options = InsightsOptions(read_reflections=True)
    plants = _seed_plants(scenario, chosen, donors, seed)
    builds = []
    for gate in scenario.gates:
        for step, plant in plants:
            planted = order[step]
            experience = planted_experience(order, planted.id, plant.text)
            planned = plan_critiques(experience, DOMAIN, random.Random(seed), options)
            critique_step = next(i for i, p in enumerate(planned)
                                 if p.critique.kind == "compare" and p.critique.tasks == [planted.id])
            label = plant.kind if plant.variant == 0 else f"{plant.kind}{plant.variant}"
            context = CallContext(task_id=planted.id, trial=step, condition=f"{label}-gate" if gate else label,
                                  role="reflector")
            reasons: list[str | None] = []

            def ask(messages: list[ChatMessage], context: CallContext = context,
                    reasons: list[str | None] = reasons) -> str:
                response = MeteredLLM(llm, context).generate(chat_request(messages, scenario.max_tokens, seed))
                reasons.append(response.finish_reason)
                return response.text

            ledger, refusals = gated_extract(planned, experience, ask, DOMAIN, gate, options.max_num_rules,
                                             scenario.gate_locations)
            record = Plant(kind=plant.kind, task_id=planted.id, step=critique_step, text=plant.text, donor=plant.donor,
                           variant=plant.variant, markers=plant.markers)
            builds.append(PropagationBuild(
                seed=seed, gate=gate, plant=record, training=[t.id for t in order], evaluation=held_out, ledger=ledger,
                refusals=refusals, cut=[i for i, reason in enumerate(reasons) if reason == LENGTH_LIMIT],
            ))
    return builds
