"""ExpeL's ALFWorld evaluation as options of the insight stage, on one real game with a scripted (not learned) model:
`insights.actor=expel` plays the evaluation with ExpeL's chat prompt and step budget, and `insights.room_description`
shows the critic the game's room before its task, as ExpeL's task file does."""

from __future__ import annotations

from pathlib import Path

from hydra import compose, initialize_config_dir

from harness.domains.registry import build_domain
from harness.llm import CachedLLM, CacheStore, LLMRequest, LLMResponse, Usage
from harness.records.insights import Critique, ExperienceTask, ExperienceTrial, TrialRef
from harness.records.insights_log import EVALUATION_FILE, CritiqueAnswered, LibraryOpened, insights_log
from harness.records.trial import read_trials
from harness.reflection import get_source
from harness.reflection.insights import replay, rules_message
from harness.run.config import RunConfig
from harness.run.config_dirs import CONFIG_DIR
from harness.run.insights_stage import InsightsStage
from harness.run.interrupt import StopRequest
from harness.run.loop import ConditionRun, LoopSettings
from harness.run.progress import Progress
from harness.run.validation import validate_config

GAME = "pick_two_obj_and_place-SoapBar-None-Cabinet-424/trial_T20190909_081720_491733"
SENTENCE = "find two soapbar and put them in cabinet."
ROOM = "You are in the middle of a room. Looking quickly around you, you see a cabinet 4, a cabinet 3, a cabinet 2, "
RULE = "Check the countertop before the cabinets."


class ScriptedModel:
    """Adds one rule when asked to critique, goes to countertop 1 when asked to act (named so: it is no LLM)."""

    identity = "scripted-expel-evaluation"

    def __init__(self) -> None:
        self.requests: list[LLMRequest] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        content = request.messages[0].content if request.messages else request.prompt or ""
        text = f"ADD 1: {RULE}" if "EXISTING RULES" in content else "go to countertop 1"
        return LLMResponse(text=text, usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


class ScriptedPool:
    def __init__(self, llm: CachedLLM) -> None:
        self.llm = llm

    def get(self, role: str, model: object) -> CachedLLM:
        return self.llm


def _config(*overrides: str) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return validate_config(compose(config_name="config", overrides=[
            "env=alfworld", "env.set=null", f"env.games=[{GAME}]", "env.engine_workers=0", "memory.scope=insights", *overrides]))


def _condition(llm: CachedLLM) -> ConditionRun:
    return ConditionRun(name="self_diagnosis", source=get_source("self_diagnosis")(1_000_000), actor_llm=llm,
                        reflector_llm=llm, actor_model="scripted", reflector_model="scripted")


def test_expels_actor_plays_the_evaluation_with_its_prompt_and_its_step_budget(tmp_path: Path) -> None:
    config = _config("insights.actor=expel")
    model = ScriptedModel()
    llm = CachedLLM(model, CacheStore(tmp_path / "cache.jsonl"), "off")  # type: ignore[arg-type]
    critique = Critique(kind="all_success", tasks=["t"], trials=[TrialRef(task_id="t", trial=0)])
    domain = build_domain(config.env)
    try:
        stage = InsightsStage(config, domain, None, tmp_path, lambda: None)  # type: ignore[arg-type]
        stage.evaluate(_condition(llm), [GAME], replay([(critique, f"ADD 1: {RULE}")]),
                       LoopSettings(trials=1, max_concurrency=1, seed=0), lambda n: Progress(n, enabled=False),
                       StopRequest())
    finally:
        domain.close()
    (record,) = read_trials(tmp_path, EVALUATION_FILE)
    # ExpeL's environment ends an episode on an action repeated at once, after playing it.
    assert [s.action for s in record.trajectory] == ["go to countertop 1"] * 2 and record.end_reason == "exhausted"
    first, *_ = model.requests
    assert first.kind == "chat" and first.stop == ["\n", "\n\n"] and first.messages is not None
    message = first.messages[0].content
    assert message.startswith("You are alfred. Follow the syntax of the examples closely when taking actions.\n"
                              "You may take maximum of 20 steps.\nHere are two examples:\n\n")
    assert f"(END OF EXAMPLES)\n\n{rules_message([RULE], 'alfworld')}\nNow it's your turn!\n{ROOM}" in message
    assert message.endswith(f"\n\nYour task is to: {SENTENCE}")


def test_the_critic_reads_the_room_before_the_task_with_room_description(tmp_path: Path) -> None:
    trials = [ExperienceTrial(trajectory="> go to cabinet 1\nThe cabinet 1 is closed.", success=False),
              ExperienceTrial(trajectory="> go to countertop 1\nOn the countertop 1, you see a soapbar 1.", success=True)]
    task = ExperienceTask(id=GAME, task=SENTENCE, trials=trials)
    requests = {}
    for room in (False, True):
        config = _config(f"insights.room_description={str(room).lower()}")
        run_dir = tmp_path / str(room)
        run_dir.mkdir()
        pool = ScriptedPool(CachedLLM(ScriptedModel(), CacheStore(run_dir / "cache.jsonl"), "off"))  # type: ignore[arg-type]
        domain = build_domain(config.env)
        try:
            stage = InsightsStage(config, domain, pool, run_dir, lambda: None)  # type: ignore[arg-type]
            read = stage._with_openings([task]) if room else [task]
            stage.library(_condition(pool.llm), 0, read, ["evaluated"])
        finally:
            domain.close()
        lines = [line.root for line in insights_log(run_dir).read()]
        opened = next(line for line in lines if isinstance(line, LibraryOpened))
        assert opened.room_description is room and opened.without_room == []
        requests[room] = [line.request for line in lines if isinstance(line, CritiqueAnswered)]
    compare, all_success = requests[True]
    assert f"TRIAL TASK:\n{ROOM}" in compare and f"towelholder 1.\n\nYour task is to: {SENTENCE}\n\nSUCCESSFUL" in compare
    assert f"Here are the trials:\n{ROOM}" in all_success
    assert [r.replace(r[r.index(ROOM):r.index("Your task is to: ")], "").replace("Your task is to: ", "")
            for r in requests[True]] == requests[False]
