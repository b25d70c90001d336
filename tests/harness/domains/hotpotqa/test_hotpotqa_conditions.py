"""Every reflection source on HotpotQA through the real loop, with stand-in models (named so: they are no LLM) that
answer from rules: each condition's memory decides the second trial, and each leaves its own evidence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.domains.hotpotqa.config import HotpotQAEnvConfig
from harness.domains.hotpotqa.domain import build
from harness.records.hotpotqa import QuestionAttempt
from harness.gate import GateStore
from harness.reflection.gated_memory import GatedMemory
from harness.llm import CachedLLM, CacheStore, LLMRequest, LLMResponse, Usage
from harness.records import TrialLog, TrialRecord
from harness.records.details import GateOutcome, ListedSignals, TemplateParts
from harness.reflection import get_source
from harness.run.loop import ConditionRun, LoopSettings, run_loop
from harness.run.progress import Progress

VIVA = "5a7613c15542994ccc9186bf"
KEY = "Gesellschaft mit beschränkter Haftung"
LESSON = f"VIVA Media AG is now a GmbH: answer {KEY}, what the acronym stands for."
GATED = [
    {"lesson": LESSON, "evidence": {"turn": 3, "quote": f"A {KEY} (] , abbreviated GmbH"}},
    {"lesson": "My action was right.", "evidence": {"turn": 5, "quote": "Action: Finish[VIVA Media AG]"}},
]
SOURCES = ["no_memory", "self_diagnosis", "programmatic", "grounded_template", "gated"]


class RuleStandIn:
    """A stand-in model: answers each request by a rule on its prompt."""

    def __init__(self, identity: str, rule: Callable[[str], str]) -> None:
        self.identity, self.rule = identity, rule
        self.prompts: list[str] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.prompts.append(request.prompt or "")
        return LLMResponse(text=self.rule(request.prompt or ""), usage=Usage(), latency_s=0.0)


def actor_rule(prompt: str) -> str:
    if prompt.endswith("Thought:"):
        return " The new name is in the first paragraph.\n"
    remembered = prompt.split("Relevant Context: ")[-2].split("(END OF EXAMPLES)")[-1]
    return f"Finish[{KEY}]" if "Reflections:" in remembered and "GmbH" in remembered else "Finish[VIVA Media AG]"


def reflector_rule(prompt: str) -> str:
    if prompt.endswith("FAILED STEP:"):
        return f" Finish[VIVA Media AG]\nROOT CAUSE: The new name is a GmbH.\nNEW PLAN: Answer {KEY}."
    if prompt.endswith("Lessons:\n["):
        return json.dumps(GATED)[1:]
    return f" {LESSON}\n"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[TrialRecord], Path, RuleStandIn]:
    root = tmp_path_factory.mktemp("hotpotqa")
    domain = build(HotpotQAEnvConfig(name="hotpotqa", questions=[VIVA]))
    store = CacheStore(root / "cache.jsonl")
    actor, reflector = RuleStandIn("actor", actor_rule), RuleStandIn("reflector", reflector_rule)
    conditions = []
    for name in SOURCES:
        source = get_source(name)(memory_window=1_000_000)
        gate = GatedMemory(root / "gate" / name, "auto", source.memory_window) if source.needs_gate else None
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
    run_loop(domain, conditions, log, LoopSettings(trials=3, max_concurrency=2, seed=0), Progress(3, False))
    return log.records, root, actor


def by(records: list[TrialRecord], condition: str) -> list[TrialRecord]:
    return sorted((r for r in records if r.condition == condition), key=lambda r: r.trial)


def test_memory_decides_the_second_trial_and_a_correct_question_stops(played) -> None:  # type: ignore[no-untyped-def]
    records, _, _ = played
    for name in SOURCES:
        mine = by(records, name)
        assert mine[0].end_reason == "incorrect" and not mine[0].success
        if name == "no_memory":
            assert [r.success for r in mine] == [False, False, False]
            # The last trial writes no reflection (Reflexion reflects at the start of the next one).
            assert all(r.reflection is None for r in mine)
        else:
            assert [r.success for r in mine] == [False, True], name
            assert mine[1].reflection is None and mine[0].reflection is not None


def test_each_source_leaves_its_own_evidence(played) -> None:  # type: ignore[no-untyped-def]
    records, root, actor = played
    # Reflexion keeps format_step(answer): the reflection is stored stripped.
    assert by(records, "self_diagnosis")[0].reflection == LESSON
    assert by(records, "self_diagnosis")[1].memory == [LESSON]
    programmatic = by(records, "programmatic")[0]
    # The wrong answer occurs in the context and is the first one given: the parser finds nothing to say.
    assert isinstance(programmatic.reflection_details, ListedSignals) and programmatic.reflection_details.lines == []
    template = by(records, "grounded_template")[0]
    assert isinstance(template.reflection_details, TemplateParts)
    assert not template.reflection_details.malformed and template.reflection_details.matched_step == 2
    gated = by(records, "gated")[0]
    assert isinstance(gated.reflection_details, GateOutcome) and gated.reflection == LESSON
    assert [d.reason for d in gated.reflection_details.dropped] == ["not an outside turn"]
    assert [p.quoted_turn.role for p in gated.reflection_details.proposed] == ["environment"]
    assert GateStore.open(root / "gate" / "gated").verify().ok
    attempt = by(records, "self_diagnosis")[1].attempt_details
    assert isinstance(attempt, QuestionAttempt) and attempt.earlier_answers == ["VIVA Media AG"]
    assert any("Reflections:\n- " + LESSON in prompt for prompt in actor.prompts)
