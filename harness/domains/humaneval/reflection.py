"""What HumanEval gives the reflection sources: Reflexion's self-reflection request, the signals of the internal
tests, the failed tests the template may quote and the trial as numbered turns (the task, the code, the tests)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.domains.base import ReflectionHooks, ReflectionInput, TemplateCandidates
from harness.domains.humaneval.actor import REFLEXION_CHAT_TEMPERATURE, code_block, reflection_messages
from harness.records.humaneval import CodeAttempt, CodeSignals
from harness.llm import ChatMessage, LLMRequest, chat_request
from harness.llm.prompts import GATED_MAX_TOKENS, gated_messages, read_prompt, signals_block
from harness.records.details import ExtractedCodeSignals, ReflectionDetails
from harness.records.gate import Turn

# Reflexion's programming reflector asked for 1024 tokens; a reflection ends its turn long before.
CODE_REFLECTION_MAX_TOKENS = 1024


def code_and_feedback(trial: ReflectionInput) -> tuple[str, str]:
    """The implementation and its test feedback, from the trial's single step."""
    step = trial.trajectory[-1]
    return step.action, step.observation


def code_reflection_request(implementation: str, feedback: str, seed: int) -> LLMRequest:
    """Reflexion's programming self-reflection call (chat, at its generate_chat default temperature)."""
    return chat_request(
        reflection_messages(implementation, feedback), CODE_REFLECTION_MAX_TOKENS, seed, REFLEXION_CHAT_TEMPERATURE
    )


def code_template_messages(implementation: str, feedback: str) -> list[ChatMessage]:
    """The template instruction, then the code and its test results."""
    user = read_prompt("humaneval/grounded_template_user.txt").format(
        implementation=code_block(implementation), feedback=feedback
    )
    return [
        ChatMessage(role="system", content=read_prompt("humaneval/grounded_template_system.txt").rstrip("\n")),
        ChatMessage(role="user", content=user.rstrip("\n")),
    ]


def test_candidates(signals: CodeSignals) -> list[tuple[int, str]]:
    """(1-based position, source) of every failed test case of the run."""
    return list(enumerate((case.source for case in signals.failed_cases), start=1))


def humaneval_turns(task_text: str, code: str, feedback: str, memory: Sequence[str]) -> list[Turn]:
    """Earlier lessons, the task (the user's), the implementation (the agent's), the test output."""
    texts: list[tuple[str, str]] = [("reflection", lesson) for lesson in memory]
    texts += [("user", task_text.strip()), ("agent", code.strip()), ("tests", feedback.strip())]
    return [Turn(id=number, role=role, text=text) for number, (role, text) in enumerate(texts, start=1)]


def _signals(trial: ReflectionInput) -> CodeSignals:
    if not isinstance(trial.evidence, CodeAttempt):
        raise ValueError(f"{trial.task_id}: a HumanEval trial reached a reflection source without its attempt.")
    return trial.evidence.signals


class HumanEvalReflection(ReflectionHooks):
    """The test feedback is the scenario; the failed tests are what FAILED STEP may quote; test output is evidence."""

    def self_diagnosis_request(self, trial: ReflectionInput, appendix: str = "") -> LLMRequest:
        implementation, feedback = code_and_feedback(trial)
        return code_reflection_request(implementation, feedback + appendix, trial.seed)

    def failure_signals(self, trial: ReflectionInput) -> tuple[ReflectionDetails, str]:
        signals = _signals(trial)
        block = signals_block("humaneval", signals.render() if signals.has_failures else "")
        return ExtractedCodeSignals(signals=signals, rendered=block.strip()), block

    def template_request(self, trial: ReflectionInput) -> tuple[LLMRequest, str]:
        messages = code_template_messages(*code_and_feedback(trial))
        return chat_request(messages, CODE_REFLECTION_MAX_TOKENS, trial.seed), ""

    def template_candidates(self, trial: ReflectionInput) -> TemplateCandidates:
        return TemplateCandidates(
            items=test_candidates(_signals(trial)), unmatched="FAILED STEP quotes no test that failed"
        )

    def gated_turns(self, trial: ReflectionInput) -> list[Turn]:
        code, feedback = code_and_feedback(trial)
        return humaneval_turns(trial.task_text, code, feedback, trial.memory)

    def gated_request(self, trial: ReflectionInput, turns_text: str) -> tuple[LLMRequest, str]:
        return chat_request(gated_messages("humaneval", turns_text), GATED_MAX_TOKENS, trial.seed), ""
