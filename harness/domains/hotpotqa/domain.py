"""HotpotQA as a domain: Reflexion's CoT agent with the supporting paragraphs as context (its CotQA_context runs).

Each trial is one Thought and one Action on a fresh scratchpad; Finish[answer] is judged by Reflexion's EM and a
correct question is over. Reflexion reflects at the start of the next trial on the previous scratchpad, so the
last trial writes no reflection; the actor reads every reflection written so far.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from harness.domains.base import Attempt, Domain
from harness.domains.hashing import prompts_hash
from harness.domains.hotpotqa.agent import play_cot_trial
from harness.domains.hotpotqa.config import HotpotQAEnvConfig
from harness.records.hotpotqa import QuestionAttempt
from harness.domains.hotpotqa.questions import Question, data_bytes, select_questions
from harness.domains.hotpotqa.reflection import HotpotQAReflection
from harness.llm.metering import MeteredLLM
from harness.records import TrialRecord


def earlier_answers(earlier: Sequence[TrialRecord]) -> list[str]:
    """The Finish answers of a task's earlier trials, in trial order."""
    attempts = [r.attempt_details for r in sorted(earlier, key=lambda r: r.trial)]
    return [a.answer for a in attempts if isinstance(a, QuestionAttempt) and a.answer is not None]


class HotpotQADomain(Domain):
    """The chosen questions; each trial is one Thought and one Action."""

    name = "hotpotqa"
    max_steps = 1
    reflects_after_last_trial = False

    def __init__(self, questions: Sequence[Question]) -> None:
        self.questions = {question.id: question for question in questions}
        self.reflection = HotpotQAReflection(self.questions)

    def task_ids(self) -> list[str]:
        return list(self.questions)

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
        question = self.questions[task_id]
        on_step(1)
        trial = play_cot_trial(question, window, earlier_answers(earlier), actor, seed, self.rules)
        return Attempt(
            task_text=question.question,
            trajectory=trial.trajectory,
            success=trial.success,
            end_reason=trial.end_reason,
            scenario=trial.attempt.scratchpad,
            env_s=0.0,
            details=trial.attempt,
        )

    def finished(self, success: bool, end_reason: str) -> bool:
        return success

    def data_hashes(self) -> dict[str, str]:
        return {"questions": hashlib.sha256(data_bytes()).hexdigest(), "prompts": prompts_hash("hotpotqa")}


def build(env: HotpotQAEnvConfig, only: frozenset[str] | None = None) -> HotpotQADomain:
    """The domain of a run's env config; `only`: the held-out tasks it keeps (None: all it selects)."""
    return HotpotQADomain(select_questions(env, only=only))
