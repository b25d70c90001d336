"""What the reflector read about a stored trial, rebuilt from its record: the `scenario` of the trial's
ReflectionInput, as the loop handed it to the reflection source when the trial was played.

HumanEval's is the feedback (the step's observation) and HotpotQA's the scratchpad its record keeps. ALFWorld's
record keeps the steps but not the episode's opening text, so that is read from the game's reset (deterministic),
and Reflexion's episode log is rebuilt around the recorded steps.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.domains.base import Domain
from harness.records import TrialRecord
from harness.records.hotpotqa import QuestionAttempt

ScenarioRule = Callable[[TrialRecord, Domain], str]


def humaneval_scenario(record: TrialRecord, domain: Domain) -> str:
    return record.trajectory[-1].observation


def hotpotqa_scenario(record: TrialRecord, domain: Domain) -> str:
    if isinstance(record.attempt_details, QuestionAttempt):
        return record.attempt_details.scratchpad
    raise ValueError(f"{record.task_id}: a HotpotQA record without its attempt.")


def alfworld_scenario(record: TrialRecord, domain: Domain) -> str:
    from envs.alfworld import AlfworldEpisode
    from harness.domains.alfworld.actor import Episode, initial_observation

    game = domain.games[record.task_id]  # type: ignore[attr-defined]  # the ALFWorld domain's chosen games
    with AlfworldEpisode(game, max_episode_steps=None) as episode:
        opening = initial_observation(episode.reset().observation)
    played = Episode(
        initial_observation=opening,
        task_text=record.task_text,
        steps=record.trajectory,
        success=record.success,
        end_reason=record.end_reason,
    )
    return played.scenario()


SCENARIOS: dict[str, ScenarioRule] = {
    "alfworld": alfworld_scenario,
    "humaneval": humaneval_scenario,
    "hotpotqa": hotpotqa_scenario,
}


def register_scenario(domain: str, rule: ScenarioRule) -> None:
    """Teach the bank what the reflector read on another domain."""
    SCENARIOS[domain] = rule


def stored_scenario(record: TrialRecord, domain: Domain) -> str:
    """The trial's scenario; ValueError naming the domain when the bank cannot rebuild it."""
    rule = SCENARIOS.get(domain.name)
    if rule is None:
        raise ValueError(f"the bank cannot rebuild what the reflector read on domain {domain.name!r}; "
                         f"it can on {', '.join(SCENARIOS)}.")
    return rule(record, domain)
