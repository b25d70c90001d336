"""Behavioural reach on a real ALFWorld game with a scripted (not learned) actor that goes where a rule in its prompt
says its object was, and nowhere near it otherwise: the arm with the rule acts on it, the arm without does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.llm import CachedLLM, CacheConfig, CacheStore, LLMRequest, LLMResponse, Usage
from harness.records.insights import Critique, InsightsLedger, TrialRef
from harness.records.propagation import RESULT_FILE, Plant, PropagationBuild, PropagationStudy
from harness.reflection.insights import replay
from harness.reflection.insights.reach_trace import reach_markdown
from harness.run.propagation_config import ReachConfig
from harness.run.scenarios.reach import read_build, run_reach

GAME = "pick_two_obj_and_place-SoapBar-None-Cabinet-424/trial_T20190909_081720_491733"
RULE = "I should have taken soapbar 1 from cabinet 1, then put it in cabinet 1."


class FollowsTheRule:
    """Goes to cabinet 1 when the rule is in its prompt, looks around otherwise (named so: it is no LLM)."""

    identity = "follows-the-rule"

    def generate(self, request: LLMRequest) -> LLMResponse:
        action = "go to cabinet 1" if RULE in (request.prompt or "") else "look"
        return LLMResponse(text=" " + action, usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


def _study(tmp_path: Path) -> Path:
    critique = Critique(kind="all_success", tasks=["env_115"], trials=[TrialRef(task_id="env_115", trial=1)])
    ledger: InsightsLedger = replay([(critique, f"ADD 1: Check the shelves first.\nADD 2: {RULE}")])
    build = PropagationBuild(seed=0, gate=False, training=["env_115"], evaluation=[GAME], ledger=ledger,
                             plant=Plant(kind="none", task_id="env_115", step=0, text=None, markers=[]))
    study = PropagationStudy(model="m", source="s", reads="r", tasks=[], builds=[build])
    run = tmp_path / "study"
    run.mkdir()
    (run / RESULT_FILE).write_text(study.model_dump_json())
    return run


def test_the_arm_with_the_rule_acts_on_it_and_the_arm_without_does_not(tmp_path: Path) -> None:
    scenario = ReachConfig(study=str(_study(tmp_path)), rank=2, games=1, max_steps=1,
                           cache=CacheConfig(mode="off", path=str(tmp_path / "cache.jsonl")))
    build = read_build(scenario)
    llm = CachedLLM(FollowsTheRule(), CacheStore(tmp_path / "cache.jsonl"), "off")  # type: ignore[arg-type]
    (tmp_path / "run").mkdir()
    study = run_reach(scenario, "scripted", llm, build, tmp_path / "run")
    with_rule, without = study.episodes
    assert (with_rule.arm, with_rule.acted) == ("with", ["go to cabinet 1"])
    assert (without.arm, without.acted) == ("without", [])
    assert study.claims == ["soapbar 1 in cabinet 1"]
    table = reach_markdown(study)
    assert "| with | 1 | 1/1 (" in table and "| without | 1 | 0/1 (" in table


def test_a_rule_without_a_claim_is_refused_in_one_sentence(tmp_path: Path) -> None:
    scenario = ReachConfig(study=str(_study(tmp_path)), rank=1, cache=CacheConfig(mode="off", path="x"))
    with pytest.raises(ConfigError, match=r"^scenario.rank = 1 is invalid: that build's final list holds 2 rule"):
        read_build(scenario)
