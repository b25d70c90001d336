"""The HumanEval loop end to end: stand-in models (named so, they are no LLM), the real sandbox and check()."""

from __future__ import annotations

from pathlib import Path

from envs.humaneval import load_problems, select_problems
from harness.domains.humaneval.domain import CodeProtocol, HumanEvalDomain
from harness.llm import CachedLLM, CacheStore, LLMRequest, LLMResponse, Usage
from harness.run.loop import ConditionRun, LoopSettings, run_loop
from harness.run.progress import Progress
from harness.records import TrialLog
from harness.reflection import get_source
from harness.records.details import ExtractedCodeSignals
from envs.sandbox import SandboxLimits

PROBLEM = "HumanEval/2"  # truncate_number: the decimal part of a positive float
TESTS = (
    "assert truncate_number(3.5) == 0.5\n"
    "assert truncate_number(1.25) == 0.25\n"
    "assert other_function(1) == 2\n"  # calls no entry point: dropped, with its reason
)
WRONG = "```python\ndef truncate_number(number: float) -> float:\n    return number - 1\n```"
RIGHT = "```python\ndef truncate_number(number: float) -> float:\n    return number % 1.0\n```"
REFLECTION = "truncate_number(3.5) returned 2.5: subtracting 1 is wrong, the decimal part is number % 1.0."


class Scripted:
    """A stand-in model: answers each call with the next scripted text and keeps the requests."""

    def __init__(self, identity: str, *answers: str) -> None:
        self.identity = identity
        self.answers = list(answers)
        self.requests: list[LLMRequest] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return LLMResponse(text=self.answers.pop(0), usage=Usage(prompt_tokens=3, completion_tokens=2), latency_s=0.0)


def protocol(**options: object) -> CodeProtocol:
    """Reflexion's protocol, here with six internal tests and the strict filter unless told otherwise."""
    settings: dict[str, object] = {"max_tests": 6, "test_filter": "strict", **options}
    limits = SandboxLimits(timeout_s=10)
    return CodeProtocol(test_limits=limits, check_limits=limits, **settings)  # type: ignore[arg-type]


def run(
    tmp_path: Path, source: str, actor: Scripted, reflector: Scripted, trials: int = 3, **options: object
) -> TrialLog:
    store = CacheStore(tmp_path / "cache.jsonl")
    condition = ConditionRun(
        name=source,
        source=get_source(source)(memory_window=1),
        actor_llm=CachedLLM(actor, store, "off"),
        reflector_llm=CachedLLM(reflector, store, "off"),
        actor_model="actor",
        reflector_model="reflector",
    )
    domain = HumanEvalDomain(select_problems(load_problems(), ids=[PROBLEM]), protocol(**options))
    log = TrialLog(tmp_path / "run")
    run_loop(domain, [condition], log, LoopSettings(trials=trials, max_concurrency=1, seed=0), Progress(trials, False))
    return log


def test_a_wrong_first_implementation_is_reflected_on_and_the_improved_one_solves_it(tmp_path: Path) -> None:
    actor = Scripted("actor", TESTS, WRONG, RIGHT)
    reflector = Scripted("reflector", REFLECTION)
    first, second = run(tmp_path, "programmatic", actor, reflector).records
    assert (first.trial, first.success, first.end_reason) == (0, False, "internal_tests_failed")
    details = first.attempt_details
    assert details is not None and details.internal_tests is not None
    assert details.tests_run == ["assert truncate_number(3.5) == 0.5", "assert truncate_number(1.25) == 0.25"]
    assert [d.reason for d in details.internal_tests.dropped] == ["no_entry_point_call"]
    assert details.internal_status == "failed" and details.check_status is None
    assert first.trajectory[0].observation == (
        "Tested passed:\nassert truncate_number(1.25) == 0.25\n\nTests failed:\n"
        "assert truncate_number(3.5) == 0.5 # output: 2.5"
    )
    assert first.reflection == REFLECTION
    assert isinstance(first.reflection_details, ExtractedCodeSignals)
    assert "assert truncate_number(3.5) == 0.5" in first.reflection_details.rendered
    assert "Failures found in these results by a parser" in reflector.requests[0].messages[-1].content
    # Trial 1 reads the reflection, rewrites the code from the feedback, passes its tests and check().
    assert second.memory == [REFLECTION] and second.success and second.end_reason == "internal_tests_passed"
    assert second.attempt_details.internal_tests is None and second.attempt_details.check_status == "passed"
    assert second.reflection is None
    improved_prompt = [m.content for m in actor.requests[2].messages]
    assert REFLECTION in improved_prompt and any("# output: 2.5" in m for m in improved_prompt)


def test_once_its_own_tests_pass_the_task_ends_even_if_check_fails(tmp_path: Path) -> None:
    # Tests that agree with wrong code: Reflexion stops iterating, and check() says it was wrong.
    agreeing = "assert truncate_number(3.5) == 2.5\n"
    log = run(tmp_path, "self_diagnosis", Scripted("actor", agreeing, WRONG), Scripted("reflector"))
    [only] = log.records
    assert (only.success, only.end_reason, only.reflection) == (False, "internal_tests_passed", None)
    assert only.attempt_details.check_status == "failed"


def test_grounded_template_must_quote_a_failed_test(tmp_path: Path) -> None:
    answer = (
        "FAILED STEP: assert truncate_number(3.5) == 0.5\n"
        "ROOT CAUSE: `return number - 1` subtracts one instead of taking the decimal part.\n"
        "NEW PLAN: Return number % 1.0."
    )
    log = run(tmp_path, "grounded_template", Scripted("actor", TESTS, WRONG, RIGHT), Scripted("reflector", answer))
    first = log.records[0]
    parts = first.reflection_details
    assert parts is not None and parts.kind == "grounded_template" and not parts.malformed
    assert parts.matched_step == 1 and first.reflection.startswith("FAILED STEP: assert truncate_number(3.5)")


def test_the_last_trial_goes_to_check_whatever_its_tests_say_and_is_not_reflected_on(tmp_path: Path) -> None:
    # A wrong internal test fails every implementation; Reflexion still runs check() on the last one.
    wrong_test = "assert truncate_number(3.5) == 3.0\n"
    actor = Scripted("actor", wrong_test, WRONG, RIGHT)
    log = run(tmp_path, "self_diagnosis", actor, Scripted("reflector", REFLECTION), trials=2)
    first, last = log.records
    assert (first.success, first.attempt_details.check_status, first.reflection) == (False, None, REFLECTION)
    assert (last.end_reason, last.attempt_details.check_status, last.success) == (
        "internal_tests_failed",
        "passed",
        True,
    )
    assert last.reflection is None, "Reflexion writes max_iters - 1 reflections"


def test_one_internal_test_is_kept_by_default_as_in_reflexion(tmp_path: Path) -> None:
    log = run(tmp_path, "self_diagnosis", Scripted("actor", TESTS, RIGHT), Scripted("reflector"), 3, max_tests=1)
    [only] = log.records
    assert len(only.attempt_details.tests_run) == 1 and only.success
