"""A third domain from tests/ alone: sums to answer, registered by name, played through the real loop under every
reflection source. Nothing in harness/ knows it; the stand-in models (named so: they are no LLM) answer from rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from harness.domains.base import Attempt, Domain, ReflectionHooks, ReflectionInput, TemplateCandidates
from harness.domains.registry import build_domain, register_domain
from harness.gate import GateStore
from harness.reflection.gated_memory import GatedMemory
from harness.llm import CachedLLM, CacheStore, LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM
from harness.records import TrialLog, TrialRecord
from harness.records.details import GateOutcome, ListedSignals, TemplateParts
from harness.records.gate import Turn
from harness.records.step import Step
from harness.reflection import get_source
from harness.run.loop import ConditionRun, LoopSettings, run_loop
from harness.run.progress import Progress

SUMS = {"sum/1": (2, 3), "sum/2": (4, 4)}
WRONG = "That is not the answer."


def completion(prompt: str, seed: int, stop: list[str] | None = None) -> LLMRequest:
    return LLMRequest(kind="completion", prompt=prompt, max_tokens=32, stop=stop or [], seed=seed)


class SumReflection(ReflectionHooks):
    def self_diagnosis_request(self, trial: ReflectionInput, appendix: str = "") -> LLMRequest:
        step = trial.trajectory[-1]
        return completion(f"{trial.task_text}\nYou said {step.action}. {step.observation}{appendix}\nLesson:", trial.seed)

    def failure_signals(self, trial: ReflectionInput) -> tuple[ListedSignals, str]:
        lines = [f"`{step.action}` was wrong." for step in trial.trajectory if step.observation == WRONG]
        block = "\nSignals:\n" + "\n".join(lines)
        return ListedSignals(lines=lines, rendered=block.strip()), block

    def template_request(self, trial: ReflectionInput) -> tuple[LLMRequest, str]:
        return completion(f"{trial.task_text}\nTEMPLATE\nFAILED STEP:", trial.seed), "FAILED STEP:"

    def template_candidates(self, trial: ReflectionInput) -> TemplateCandidates:
        items = [(n, step.action) for n, step in enumerate(trial.trajectory, start=1)]
        return TemplateCandidates(items=items, unmatched="FAILED STEP quotes no answer that was given")

    def gated_turns(self, trial: ReflectionInput) -> list[Turn]:
        step = trial.trajectory[-1]
        texts = [("user", trial.task_text), ("agent", step.action), ("environment", step.observation)]
        return [Turn(id=n, role=role, text=text) for n, (role, text) in enumerate(texts, start=1)]  # type: ignore[arg-type]

    def gated_request(self, trial: ReflectionInput, turns_text: str) -> tuple[LLMRequest, str]:
        return completion(f"GATED\n{turns_text}\nLessons:\n[", trial.seed), "["


class SumDomain(Domain):
    name = "sums"
    max_steps = 1
    reflection = SumReflection()

    def task_ids(self) -> list[str]:
        return list(SUMS)

    def play(
        self,
        task_id: str,
        window: list[str],
        earlier: Sequence[TrialRecord],
        actor: MeteredLLM,
        seed: int,
        on_step: Callable[[int], None],
        last_trial: bool,
    ) -> Attempt:
        a, b = SUMS[task_id]
        task = f"What is {a} + {b}?"
        memory = "".join(f"Memory: {lesson}\n" for lesson in window)
        answer = actor.generate(completion(f"{memory}{task}\nAnswer:", seed, ["\n"])).text.strip()
        success = answer == str(a + b)
        step = Step(action=answer, observation="Correct." if success else WRONG)
        return Attempt(
            task_text=task, trajectory=[step], success=success, end_reason="answered", scenario=task, env_s=0.0
        )

    def finished(self, success: bool, end_reason: str) -> bool:
        return success

    def data_hashes(self) -> dict[str, str]:
        return {}


class RuleStandIn:
    """A stand-in model: answers each request by a rule on its text."""

    def __init__(self, identity: str, rule: Callable[[str], str]) -> None:
        self.identity, self.rule = identity, rule
        self.prompts: list[str] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.prompts.append(request.prompt or "")
        return LLMResponse(text=self.rule(request.prompt or ""), usage=Usage(), latency_s=0.0)


def actor_rule(prompt: str) -> str:
    """Wrong without memory; with lessons, the last number they name."""
    memory = prompt.split("What is")[0]
    numbers = re.findall(r"\d+", memory)
    return f" {numbers[-1]}" if "Memory:" in memory and numbers else " 1"


def reflector_rule(prompt: str) -> str:
    total = sum(map(int, re.search(r"What is (\d+) \+ (\d+)", prompt).groups()))  # type: ignore[union-attr]
    if prompt.endswith("FAILED STEP:"):
        return f" 1\nROOT CAUSE: I guessed.\nNEW PLAN: Say {total}."
    if prompt.endswith("Lessons:\n["):
        return f'{{"lesson": "Answer {total}.", "evidence": {{"turn": 3, "quote": "{WRONG}"}}}}]'
    return f" The sum is {total}."


SOURCES = ["no_memory", "self_diagnosis", "programmatic", "grounded_template", "gated"]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[TrialRecord], Path, RuleStandIn]:
    root = tmp_path_factory.mktemp("sums")
    register_domain("sums", lambda env, only: SumDomain())
    domain = build_domain(type("SumsConfig", (), {"name": "sums"})())
    store = CacheStore(root / "cache.jsonl")
    actor, reflector = RuleStandIn("actor", actor_rule), RuleStandIn("reflector", reflector_rule)
    conditions = []
    for name in SOURCES:
        source = get_source(name)(memory_window=3)
        gate = GatedMemory(root / "gate" / name, "auto", 3) if source.needs_gate else None
        conditions.append(
            ConditionRun(
                name=name,
                source=source,
                actor_llm=CachedLLM(actor, store, "off"),
                reflector_llm=CachedLLM(reflector, store, "off"),
                actor_model="actor",
                reflector_model="reflector",
                gate=gate,
            )
        )
    log = TrialLog(root / "run")
    run_loop(domain, conditions, log, LoopSettings(trials=2, max_concurrency=2, seed=0), Progress(2, False))
    return log.records, root, actor


def by(records: list[TrialRecord], condition: str) -> dict[tuple[str, int], TrialRecord]:
    return {(r.task_id, r.trial): r for r in records if r.condition == condition}


def test_every_source_runs_on_the_new_domain_and_memory_decides_the_second_trial(played) -> None:
    records, _, _ = played
    assert {r.condition for r in records} == set(SOURCES)
    for name in SOURCES:
        mine = by(records, name)
        assert set(mine) == {(task, trial) for task in SUMS for trial in (0, 1)}
        assert not any(mine[(task, 0)].success for task in SUMS)
        solved = all(mine[(task, 1)].success for task in SUMS)
        assert solved == (name != "no_memory"), name


def test_each_source_leaves_its_own_evidence(played) -> None:
    records, root, actor = played
    programmatic = by(records, "programmatic")[("sum/1", 0)]
    assert isinstance(programmatic.reflection_details, ListedSignals)
    assert programmatic.reflection_details.lines == ["`1` was wrong."]
    template = by(records, "grounded_template")[("sum/1", 0)]
    assert isinstance(template.reflection_details, TemplateParts) and not template.reflection_details.malformed
    assert template.reflection == "FAILED STEP: 1\nROOT CAUSE: I guessed.\nNEW PLAN: Say 5."
    gated = by(records, "gated")[("sum/2", 0)]
    assert isinstance(gated.reflection_details, GateOutcome) and gated.reflection == "Answer 8."
    assert all(item.quoted_turn.role == "environment" for item in gated.reflection_details.proposed)
    assert GateStore.open(root / "gate" / "gated").verify().ok
    assert by(records, "self_diagnosis")[("sum/2", 1)].memory == [" The sum is 8."]
    assert any(p.startswith("Memory: Answer 8.") for p in actor.prompts)


def test_no_source_and_no_neutral_module_asks_which_domain_it_serves() -> None:
    harness = Path(__file__).resolve().parents[3] / "harness"
    switch = re.compile(r"domain\s*==|\.name\s*==\s*[\"'](alfworld|humaneval)|isinstance\([^)]*Domain\)")
    offenders = [
        str(path.relative_to(harness))
        for path in harness.rglob("*.py")
        if "domains" not in path.relative_to(harness).parts and switch.search(path.read_text())
    ]
    assert offenders == []
