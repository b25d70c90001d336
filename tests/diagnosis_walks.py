"""A small domain from tests/ alone with diagnosis rules of its own, for the diagnosis stage, command and bank: walks
whose steps the environment answers "Closer.", "Wrong way." or "Nothing happens.". Nothing in harness/ knows it.

Its rules are deliberately simple (the shipped domains' are their own): the decisive step is the first error after
the last "Closer." step, the cause is the error's kind, a reflection points at "step N" and confabulates an action
it quotes in backticks that the walk never took. The stand-in reflector (named so: no LLM) answers by a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from harness.domains.base import (
    Attempt,
    Domain,
    ReflectionHooks,
    ReflectionInput,
    TemplateCandidates,
)
from harness.domains.registry import register_spec
from harness.domains.spec import DomainSpec
from harness.llm import LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM
from harness.records import Manifest, TrialLog, TrialRecord, write_manifest
from harness.records.alfworld import NOTHING_HAPPENS
from harness.records.details import ListedSignals
from harness.records.diagnosis import Claim, GroundTruth, ReflectionClaims, StepVerdict
from harness.records.gate import Turn
from harness.records.registry import Lazy
from harness.records.step import Step

DOMAIN = "walks"
CLOSER, WRONG = "Closer.", "Wrong way."


class WalksEnv(BaseModel):
    name: Literal["walks"] = "walks"


def _request(prompt: str, seed: int) -> LLMRequest:
    return LLMRequest(kind="completion", prompt=prompt, max_tokens=64, seed=seed)


def _log(trial: ReflectionInput) -> str:
    return "\n".join(f"> {s.action}\n{s.observation}" for s in trial.trajectory)


class WalkReflection(ReflectionHooks):
    def self_diagnosis_request(self, trial: ReflectionInput, appendix: str = "") -> LLMRequest:
        return _request(f"You walked and failed.\n{trial.scenario}{appendix}\nLesson:", trial.seed)

    def failure_signals(self, trial: ReflectionInput) -> tuple[ListedSignals, str]:
        lines = [f"Step {n}: `{s.action}` -> {NOTHING_HAPPENS}" for n, s in enumerate(trial.trajectory, start=1)
                 if s.observation == NOTHING_HAPPENS]
        block = "\nSignals:\n" + "\n".join(lines)
        return ListedSignals(lines=lines, rendered=block.strip()), block

    def template_request(self, trial: ReflectionInput) -> tuple[LLMRequest, str]:
        return _request(f"{trial.scenario}\nTEMPLATE\nFAILED STEP:", trial.seed), "FAILED STEP:"

    def template_candidates(self, trial: ReflectionInput) -> TemplateCandidates:
        items = [(n, step.action) for n, step in enumerate(trial.trajectory, start=1)]
        return TemplateCandidates(items=items, unmatched="FAILED STEP quotes no action that was taken")

    def gated_turns(self, trial: ReflectionInput) -> list[Turn]:
        return [Turn(id=1, role="user", text=trial.task_text)]

    def gated_request(self, trial: ReflectionInput, turns_text: str) -> tuple[LLMRequest, str]:
        return _request(f"GATED\n{turns_text}\n[", trial.seed), "["


class WalksDomain(Domain):
    name = DOMAIN
    max_steps = 6
    reflection = WalkReflection()

    def task_ids(self) -> list[str]:
        return []

    def play(self, task_id: str, window: list[str], earlier: Sequence[TrialRecord], actor: MeteredLLM, seed: int,
             on_step: Callable[[int], None], last_trial: bool) -> Attempt:
        raise NotImplementedError("walks are recorded by the tests, never played")

    def finished(self, success: bool, end_reason: str) -> bool:
        return success

    def data_hashes(self) -> dict[str, str]:
        return {}


def walk_truth(record: TrialRecord) -> GroundTruth:
    """Decisive: the first error after the last "Closer." step; a task id ending in "diverged" is unscored."""
    steps = record.trajectory
    if record.task_id.endswith("diverged"):
        return GroundTruth(domain=DOMAIN, task_id=record.task_id, rule="walks-truth/1", scored=False,
                           unscored="replay diverged at step 1", steps=len(steps))
    kinds = {CLOSER: ("progress", None), WRONG: ("error", "wrong_way"), NOTHING_HAPPENS: ("error", "invalid_action")}
    verdicts = [StepVerdict(step=n, verdict=kinds.get(s.observation, ("neutral", None))[0],  # type: ignore[arg-type]
                            category=kinds.get(s.observation, ("neutral", None))[1])
                for n, s in enumerate(steps, start=1)]
    last_progress = max((v.step for v in verdicts if v.verdict == "progress"), default=0)
    errors = [v for v in verdicts if v.verdict == "error"]
    decisive = next((v for v in errors if v.step > last_progress), None)
    return GroundTruth(
        domain=DOMAIN, task_id=record.task_id, rule="walks-truth/1", scored=True, steps=len(steps),
        decisive_step=decisive.step if decisive else None, category=decisive.category if decisive else "search_budget",
        error_steps=[v.step for v in errors], point_of_no_return=len(steps) - 1 if len(steps) > 1 else None,
        verdicts=verdicts,
    )


def walk_claims(record: TrialRecord, truth: GroundTruth) -> ReflectionClaims:
    text = record.reflection or ""
    claims: list[Claim] = []
    for found in re.finditer(r"step (\d+)", text):
        step = int(found.group(1))
        claims.append(Claim(kind="step", text=found.group(0), start=found.start(), end=found.end(),
                            means=f"step {step}", steps=[step], confabulated=step > len(record.trajectory)))
    actions = {s.action for s in record.trajectory}
    for found in re.finditer(r"`([^`]+)`", text):
        claims.append(Claim(kind="action", text=found.group(0), start=found.start(), end=found.end(),
                            means=found.group(1), confabulated=found.group(1) not in actions))
    cause = "wrong_way" if "wrong way" in text.lower() else "invalid_action" if "nothing" in text.lower() else None
    steps = [c.steps[0] for c in claims if c.kind == "step" and not c.confabulated]
    return ReflectionClaims(rule="walks-claims/1", claimed_steps=steps, cause=cause, claims=claims)


def walk_line(item: dict[str, Any]) -> tuple[GroundTruth, ReflectionClaims]:
    steps = item.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, dict) and {"action", "observation"} <= s.keys()
                                              for s in steps):
        raise ValueError("'steps' must be a list of {'action', 'observation'} objects.")
    task = item.get("task")
    if not isinstance(task, str) or not task:
        raise ValueError("'task' (the walk's id, a string) is missing.")
    record = walk_record(task, [(s["action"], s["observation"]) for s in steps], item["reflection"])
    truth = walk_truth(record)
    return truth, walk_claims(record, truth)


def register_walks() -> None:
    register_spec(DomainSpec(
        name=DOMAIN, builder=Lazy.of(lambda env, only=None: WalksDomain()), env_config=WalksEnv,
        truth=Lazy.of(walk_truth), claims=Lazy.of(walk_claims), line_diagnosis=Lazy.of(walk_line),
    ))


def walk_record(task: str, steps: Sequence[tuple[str, str]], reflection: str | None, condition: str = "self_diagnosis",
                trial: int = 0, success: bool = False) -> TrialRecord:
    return TrialRecord(
        task_id=task, condition=condition, trial=trial, success=success, end_reason="max_steps", steps=len(steps),
        task_text=f"walk {task}", trajectory=[Step(action=a, observation=o) for a, o in steps], memory=[],
        reflection=reflection, actor_model="stand-in", reflector_model="stand-in", usage=Usage(),
        actor_usage=Usage(), reflector_usage=Usage(), llm_calls=0, cache_hits=0, llm_latency_s=0.0,
    )


def write_walk_run(run_dir: Path, records: Sequence[TrialRecord]) -> Path:
    """A finished run directory of walks: its manifest and trials.jsonl."""
    from datetime import datetime

    log = TrialLog(run_dir)
    for record in records:
        log.append(record)
    config = {"env": {"name": DOMAIN}, "experiment": {"seed": 0}}
    write_manifest(run_dir, Manifest(config=config, package_versions={}, git_commit=None, data_hashes={},
                                     started_at=datetime.now(UTC), status="finished"))
    return run_dir


class StandInReflector:
    """A stand-in model (no LLM): names the last step and a made-up action when asked for a lesson."""

    identity = "stand-in-reflector"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        prompt = request.prompt or ""
        self.prompts.append(prompt)
        steps = prompt.count("\n> ")
        text = f" I went the wrong way at step {steps}; next time `fly home`." if "Lesson:" in prompt else " 1"
        return LLMResponse(text=text, usage=Usage(prompt_tokens=len(prompt), completion_tokens=len(text)),
                           latency_s=0.0)


def register_walks_bank() -> None:
    """What the bank needs besides the rules: the walk's scenario, and the third-party framing's wording."""
    from harness.reflection import register_source_prompts
    from harness.reflection.third_party import SOURCE, ThirdPartyFraming
    from harness.run.scenarios.stored_scenarios import register_scenario

    register_walks()
    register_scenario(DOMAIN, lambda record, domain: "\n".join(f"> {s.action}\n{s.observation}"
                                                                for s in record.trajectory))
    register_source_prompts(SOURCE, DOMAIN, ThirdPartyFraming(DOMAIN, "You walked", "Another walker walked"))
