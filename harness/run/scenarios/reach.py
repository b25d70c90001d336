"""Behavioural reach: does an actor act on a carried rule? One build's rule (by rank) is read from a finished
propagation run; a seeded draw of that build's evaluation games is played twice by the run's actor, once with the
build's final rule list before the task (ExpeL's evaluation) and once with the same list less that rule; each episode
counts as acting on the rule when it goes to or opens the rule's claimed receptacle or takes its object from it
(`harness/domains/alfworld/acting.py`). The difference between the arms is what the rule did to behaviour.
"""

from __future__ import annotations

import random
from pathlib import Path

from harness.domains.alfworld.acting import acting_actions
from harness.domains.alfworld.config import AlfworldEnvConfig
from harness.domains.alfworld.locations import location_claims
from harness.domains.base import Domain
from harness.domains.registry import build_domain
from harness.errors import ConfigError
from harness.llm import CachedLLM, CallContext
from harness.llm.metering import MeteredLLM
from harness.records.propagation import (
    REACH_FILE,
    Arm,
    RESULT_FILE,
    PropagationBuild,
    PropagationStudy,
    ReachEpisode,
    ReachStudy,
)
from harness.records.whole_file import write_whole
from harness.reflection.insights import rules_message
from harness.reflection.insights.markers import claim_marker
from harness.run.lock import RunLock
from harness.run.propagation_config import ReachConfig


def read_build(scenario: ReachConfig) -> PropagationBuild:
    """The build the scenario names, from its run's propagation.json; ConfigError in one sentence otherwise."""
    path = Path(scenario.study) / RESULT_FILE
    try:
        study = PropagationStudy.model_validate_json(path.read_bytes())
    except (OSError, ValueError):
        raise ConfigError(f"scenario.study = {scenario.study!r} holds no readable {RESULT_FILE}; name a finished "
                          "experiment=propagation run directory.") from None
    found = [b for b in study.builds if (b.seed, b.gate, b.plant.kind) == (scenario.seed, scenario.gate, scenario.plant)]
    if not found:
        cells = sorted({f"seed={b.seed} gate={b.gate} plant={b.plant.kind}" for b in study.builds})
        raise ConfigError(f"{path} has no build of seed={scenario.seed} gate={scenario.gate} plant={scenario.plant}; "
                          f"accepted: {'; '.join(cells)}.")
    build = found[0]
    if scenario.rank > len(build.ledger.rules) or not location_claims(build.ledger.rules[scenario.rank - 1].text):
        raise ConfigError(f"scenario.rank = {scenario.rank} is invalid: that build's final list holds "
                          f"{len(build.ledger.rules)} rule(s), and the traced rule must make a location claim.")
    return build


def run_reach(scenario: ReachConfig, model: str, llm: CachedLLM, build: PropagationBuild, run_dir: Path,
              domain: Domain | None = None) -> ReachStudy:
    """Each drawn game played with and without the rule, written to RUN_DIR/reach.json. `domain`: the games'
    ALFWorld domain (built here when not given)."""
    rules = [rule.text for rule in build.ledger.rules]
    traced = rules[scenario.rank - 1]
    claims = location_claims(traced)
    games = random.Random(scenario.seed).sample(build.evaluation, min(scenario.games, len(build.evaluation)))
    arms: tuple[tuple[Arm, str], ...] = (
        ("with", rules_message(rules, "alfworld")),
        ("without", rules_message([r for i, r in enumerate(rules) if i != scenario.rank - 1], "alfworld")),
    )
    lock = RunLock.acquire(run_dir)
    played = domain or build_domain(AlfworldEnvConfig(games=games, max_steps=scenario.max_steps))
    try:
        episodes = []
        for game in games:
            for arm, message in arms:
                context = CallContext(task_id=game, trial=0, condition=f"reach-{arm}", role="actor")
                attempt = played.with_rules(message).play(game, [], [], MeteredLLM(llm, context), scenario.seed,
                                                           lambda step: None, True)
                actions = [step.action for step in attempt.trajectory]
                episodes.append(ReachEpisode(game_id=game, arm=arm, actions=actions, success=attempt.success,
                                             acted=acting_actions(claims, actions)))
        study = ReachStudy(model=model, study=str(scenario.study), seed=build.seed, gate=build.gate,
                           plant=build.plant.kind, rank=scenario.rank, rule=traced,
                           claims=[claim_marker(c) for c in claims], episodes=episodes)
        write_whole(run_dir / REACH_FILE, study.model_dump_json(indent=1) + "\n")
        return study
    finally:
        if domain is None:
            played.close()
        lock.release()
