"""The sums domain itself: two sums to answer in one step each, and the hooks the reflection sources call."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.extensions import (
    Attempt, Domain, ListedSignals, LLMRequest, MentionCounts, MeteredLLM, object_mention, ReflectionHooks,
    ReflectionInput, Step, TemplateCandidates, TrialRecord, Turn,
)
from reflexion_plugin_example.sums import SumAttempt, SumsEnvConfig

SUMS = {"sum/1": (2, 3), "sum/2": (4, 4)}


def completion(prompt: str, seed: int) -> LLMRequest:
    return LLMRequest(kind="completion", prompt=prompt, max_tokens=16, stop=["\n"], seed=seed)


class SumReflection(ReflectionHooks):
    def self_diagnosis_request(self, trial: ReflectionInput, appendix: str = "") -> LLMRequest:
        return completion(f"{trial.scenario}{appendix}\nLesson:", trial.seed)

    def failure_signals(self, trial: ReflectionInput) -> tuple[ListedSignals, str]:
        lines = [f"`{step.action}` was wrong." for step in trial.trajectory]
        return ListedSignals(lines=lines, rendered="\n".join(lines)), "\n" + "\n".join(lines)

    def template_request(self, trial: ReflectionInput) -> tuple[LLMRequest, str]:
        return completion(f"{trial.scenario}\nFAILED STEP:", trial.seed), "FAILED STEP:"

    def template_candidates(self, trial: ReflectionInput) -> TemplateCandidates:
        items = [(n, step.action) for n, step in enumerate(trial.trajectory, start=1)]
        return TemplateCandidates(items=items, unmatched="FAILED STEP quotes no answer that was given")

    def gated_turns(self, trial: ReflectionInput) -> list[Turn]:
        return [Turn(id=1, role="user", text=trial.task_text)]

    def gated_request(self, trial: ReflectionInput, turns_text: str) -> tuple[LLMRequest, str]:
        return completion(f"{turns_text}\nLessons:\n[", trial.seed), "["


class SumsDomain(Domain):
    name = "sums"
    max_steps = 1
    reflection = SumReflection()

    def __init__(self, env: SumsEnvConfig, only: frozenset[str] | None = None) -> None:
        self.tasks = [task for task in list(SUMS)[: env.first_n] if only is None or task in only]

    def task_ids(self) -> list[str]:
        return self.tasks

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
        memory = "".join(f"{lesson}\n" for lesson in window)
        answer = actor.generate(completion(f"{memory}{task}\nAnswer:", seed)).text.strip()
        success = answer == str(a + b)
        step = Step(action=answer, observation="Correct." if success else "Wrong.")
        details = SumAttempt(answer=answer, numeric=answer.isdigit())
        return Attempt(
            task_text=task, trajectory=[step], success=success, end_reason="answered", scenario=task, env_s=0.0,
            details=details,
        )

    def finished(self, success: bool, end_reason: str) -> bool:
        return success

    def data_hashes(self) -> dict[str, str]:
        return {}


def target(task_id: str) -> str:
    if task_id not in SUMS:
        raise ValueError(f"{task_id!r} is not a sum")
    return str(sum(SUMS[task_id]))


def mentions(records: Sequence[TrialRecord]) -> MentionCounts:
    reflections = [r.reflection for r in records if r.reflection is not None]
    return object_mention(reflections, target(records[0].task_id))


def build(env: SumsEnvConfig, only: frozenset[str] | None = None) -> SumsDomain:
    return SumsDomain(env, only)
