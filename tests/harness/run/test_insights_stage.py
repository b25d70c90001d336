"""The insight stage's evaluation in both scopes, on a scripted model: `insights` plays each fold task once with the
rules and writes no reflection (ExpeL's evaluation); `both` plays the run's trials, each task reading the rules and
its own reflections. A library begun on other trials is refused rather than mixed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from harness.domains.registry import build_domain
from harness.errors import ConfigError, LogChangedError
from harness.llm import CachedLLM, CacheStore, LLMRequest, LLMResponse, Usage
from harness.records.insights import Critique, ExperienceTask, ExperienceTrial, TrialRef
from harness.records.insights_log import EVALUATION_FILE
from harness.records.trial import read_trials
from harness.reflection import get_source
from harness.reflection.insights import replay, rules_message, run_libraries
from harness.cli.overrides import normalize_override
from harness.run.config import RunConfig
from harness.run.validation import validate_config
from harness.run.config_dirs import CONFIG_DIR
from harness.run.insights_stage import InsightsStage
from harness.run.interrupt import StopRequest
from harness.run.loop import ConditionRun, LoopSettings
from harness.run.progress import Progress

TASKS = ["5a7613c15542994ccc9186bf", "5adf2fa35542993344016c11"]
RULE = "Read the whole context before you answer."


class ScriptedModel:
    """Always a thought, a wrong Finish and a reflection; keeps every prompt it was sent."""

    identity = "scripted-insights"

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def generate(self, request: LLMRequest) -> LLMResponse:
        prompt = request.prompt or ""
        with self._lock:
            self.prompts.append(prompt)
        text = "Finish[nobody]" if prompt.endswith("Action:") else (
            "I read the context." if prompt.endswith("Thought:") else "I will read the question again.")
        return LLMResponse(text=text, usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


class ScriptedPool:
    """The run's pool, for the critic alone: one scripted model behind a cache."""

    def __init__(self, run_dir: Path) -> None:
        self.llm = CachedLLM(ScriptedModel(), CacheStore(run_dir / "cache.jsonl"), "auto")  # type: ignore[arg-type]

    def get(self, role: str, model: object) -> CachedLLM:
        return self.llm


def _config(scope: str) -> RunConfig:
    overrides = ["env=hotpotqa", f"env.questions=[{','.join(TASKS)}]", f"memory.scope={scope}", "experiment.trials=2"]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return validate_config(compose(config_name="config", overrides=overrides))


def _evaluate(scope: str, run_dir: Path) -> ScriptedModel:
    config = _config(scope)
    model = ScriptedModel()
    llm = CachedLLM(model, CacheStore(run_dir / "cache.jsonl"), "auto")  # type: ignore[arg-type]
    condition = ConditionRun(name="self_diagnosis", source=get_source("self_diagnosis")(1_000_000), actor_llm=llm,
                             reflector_llm=llm, actor_model="scripted", reflector_model="scripted")
    critique = Critique(kind="all_success", tasks=["t"], trials=[TrialRef(task_id="t", trial=0)])
    ledger = replay([(critique, f"ADD 1: {RULE}")])
    stage = InsightsStage(config, build_domain(config.env), None, run_dir, lambda: None)  # type: ignore[arg-type]
    settings = LoopSettings(trials=2, max_concurrency=1, seed=0)
    stage.evaluate(condition, TASKS, ledger, settings, lambda trials: Progress(trials, enabled=False), StopRequest())
    return model


def test_insights_scope_plays_each_task_once_with_the_rules(tmp_path: Path) -> None:
    model = _evaluate("insights", tmp_path)
    records = read_trials(tmp_path, EVALUATION_FILE)
    assert sorted((r.task_id, r.trial) for r in records) == sorted((task, 0) for task in TASKS)
    assert all(r.reflection is None and r.memory == [] for r in records)
    message = rules_message([RULE], "hotpotqa").rstrip("\n")
    assert model.prompts and all(message in prompt for prompt in model.prompts)


def test_both_scope_adds_each_tasks_own_reflections_over_the_trials(tmp_path: Path) -> None:
    model = _evaluate("both", tmp_path)
    records = {(r.task_id, r.trial): r for r in read_trials(tmp_path, EVALUATION_FILE)}
    assert sorted(records) == sorted((task, trial) for task in TASKS for trial in (0, 1))
    for task in TASKS:
        assert records[(task, 1)].memory == [records[(task, 0)].reflection] != [None]
    actor = [p for p in model.prompts if p.endswith(("Thought:", "Action:"))]
    assert all(rules_message([RULE], "hotpotqa").rstrip("\n") in p for p in actor)


def test_a_library_begun_on_other_trials_is_refused(tmp_path: Path) -> None:
    config = _config("insights")
    pool = ScriptedPool(tmp_path)
    stage = InsightsStage(config, build_domain(config.env), pool, tmp_path, lambda: None)  # type: ignore[arg-type]
    condition = ConditionRun(name="self_diagnosis", source=get_source("self_diagnosis")(1), actor_llm=None,  # type: ignore[arg-type]
                             reflector_llm=None, actor_model="m", reflector_model="m")  # type: ignore[arg-type]
    failed = [ExperienceTask(id=TASKS[0], task="q", trials=[ExperienceTrial(trajectory="t", success=False)])]
    stage.library(condition, 0, failed, [TASKS[1]])  # never solved: one empty all-success critique is planned
    again = InsightsStage(config, build_domain(config.env), pool, tmp_path, lambda: None)  # type: ignore[arg-type]
    with pytest.raises(LogChangedError, match="begun on other training trials"):
        again.library(condition, 0, [], [TASKS[0], TASKS[1]])


class EditZeroCritic:
    """A critic whose every answer is "EDIT 0: ..." (issue 47 item 3)."""

    identity = "edit-zero"

    def generate(self, request: LLMRequest) -> LLMResponse:
        return LLMResponse(text="EDIT 0: Check everything twice.", usage=Usage(prompt_tokens=1, completion_tokens=1),
                           latency_s=0.0)


def test_edit_zero_on_an_empty_list_is_dropped_and_the_library_resumes_and_reads_back(tmp_path: Path) -> None:
    # ExpeL's update_rules fails here; the stage crashed, and the recorded answer crashed every resume and report.
    config = _config("insights")
    pool = ScriptedPool(tmp_path)
    pool.llm = CachedLLM(EditZeroCritic(), CacheStore(tmp_path / "cache.jsonl"), "auto")  # type: ignore[arg-type]
    stage = InsightsStage(config, build_domain(config.env), pool, tmp_path, lambda: None)  # type: ignore[arg-type]
    condition = ConditionRun(name="self_diagnosis", source=get_source("self_diagnosis")(1), actor_llm=None,  # type: ignore[arg-type]
                             reflector_llm=None, actor_model="m", reflector_model="m")  # type: ignore[arg-type]
    failed = [ExperienceTask(id=TASKS[0], task="q", trials=[ExperienceTrial(trajectory="t", success=False)])]
    ledger = stage.library(condition, 0, failed, [TASKS[1]])
    assert ledger.rules == [] and [o.label for o in ledger.steps[0].screened_out] == ["EDIT 0"]
    resumed = InsightsStage(config, build_domain(config.env), pool, tmp_path, lambda: None)  # type: ignore[arg-type]
    assert resumed.library(condition, 0, failed, [TASKS[1]]) == ledger
    ((_, read_back),) = run_libraries(tmp_path)
    assert read_back.steps[0].screened_out == ledger.steps[0].screened_out


def test_the_critic_is_its_own_role_model_when_named(tmp_path: Path) -> None:
    # ExpeL's paper extracts insights with a stronger model than the actor's; the default stays the actor's. The named
    # model is composed by Hydra as a role's is (insights.critic_model=<option> -> model@insights.critic_model=...).
    config = _config("insights")
    stage = InsightsStage(config, build_domain(config.env), None, tmp_path, lambda: None)  # type: ignore[arg-type]
    assert stage._critic_model("self_diagnosis") == config.conditions[0].actor
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        named = validate_config(compose(config_name="config", overrides=[
            "env=hotpotqa", "memory.scope=insights", normalize_override("insights.critic_model=gpt-4o-mini")]))
    stage = InsightsStage(named, build_domain(named.env), None, tmp_path, lambda: None)  # type: ignore[arg-type]
    assert stage._critic_model("self_diagnosis").name == "gpt-4o-mini" != config.conditions[0].actor.name
    with pytest.raises(ConfigError, match="insights.critic_model=gpt-9 is not a known model; accepted: "):
        normalize_override("insights.critic_model=gpt-9")
