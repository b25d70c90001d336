"""HumanEval as a domain: Reflexion's programming loop (`run_reflexion`), every execution in the sandbox.

Trial 0 writes the internal tests (kept for the whole task) and a first implementation; a later trial
writes an improved implementation from the previous code, its test feedback and the reflections in the
window (with no reflection, as under no_memory, it starts again from the prompt). As in Reflexion, the
real check() decides success once the internal tests pass, and also on the last trial's implementation
whatever its tests said; the task ends there. Reflexion reflects only before a new implementation, so the
last trial writes no reflection. Signals shown to reflectors come from the internal tests only, never
from check().
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from envs.humaneval import HumanEvalProblem, data_bytes, load_problems, select_problems
from harness.domains.humaneval.actor import TestFilter, first_implementation, improved_implementation, internal_tests
from harness.records.humaneval import CodeAttempt, InternalTests
from harness.errors import GameNotFoundError
from harness.domains.humaneval.config import HumanEvalEnvConfig
from harness.domains.humaneval.extraction import CodeExtraction
from harness.domains.humaneval.feedback import (
    TYPING_PREAMBLE,
    FeedbackStyle,
    feedback_text,
    internal_signals,
    run_internal_tests,
)
from harness.domains.base import Attempt, Domain
from harness.domains.humaneval.reflection import HumanEvalReflection
from harness.domains.hashing import prompts_hash
from harness.llm.metering import MeteredLLM
from harness.records import TrialRecord
from envs.sandbox import CheckScript, SandboxLimits, run_tests
from harness.records.step import Step

INTERNAL_PASSED = "internal_tests_passed"
INTERNAL_FAILED = "internal_tests_failed"


class CodeProtocol(BaseModel):
    """How HumanEval trials are played: Reflexion's protocol by default, each harness option named."""

    model_config = ConfigDict(frozen=True)

    max_tests: int = Field(ge=1, description="Internal tests kept (Reflexion: 1).")
    test_filter: TestFilter = "reflexion"
    feedback: FeedbackStyle = "reflexion"
    code_extraction: CodeExtraction = "reflexion"
    test_limits: SandboxLimits = Field(description="Limits of one internal test's run (Reflexion: 5 s).")
    check_limits: SandboxLimits = Field(description="Limits of the check() run (Reflexion: 10 s).")


class HumanEvalDomain(Domain):
    """The chosen problems; each trial is one implementation run against the internal tests."""

    name = "humaneval"
    reflection = HumanEvalReflection()
    max_steps = 1
    reflects_after_last_trial = False

    def __init__(self, problems: Sequence[HumanEvalProblem], protocol: CodeProtocol) -> None:
        self.problems = {problem.task_id: problem for problem in problems}
        self.protocol = protocol

    def task_ids(self) -> list[str]:
        return list(self.problems)

    def _tests(
        self, problem: HumanEvalProblem, earlier: Sequence[TrialRecord], actor: MeteredLLM, seed: int
    ) -> tuple[InternalTests | None, list[str]]:
        """The tests written now (trial 0) or None, and the asserts to run: trial 0's kept ones."""
        first = earlier[0].attempt_details if earlier else None
        if first is not None and first.internal_tests is not None:
            return None, first.internal_tests.kept
        protocol = self.protocol
        written = internal_tests(problem, actor, seed, protocol.max_tests, protocol.test_filter)
        return written, written.kept

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
        problem, protocol = self.problems[task_id], self.protocol
        on_step(1)
        written, kept = self._tests(problem, earlier, actor, seed)
        previous = earlier[-1].attempt_details if earlier else None
        if window and previous is not None:
            previous_feedback = earlier[-1].trajectory[-1].observation
            implementation = improved_implementation(
                problem, previous.implementation.code, previous_feedback, window, actor, seed, protocol.code_extraction
            )
        else:
            implementation = first_implementation(problem, actor, seed, protocol.code_extraction)
        started = time.perf_counter()
        run = run_internal_tests(implementation.code, kept, protocol.test_limits)
        check_status, success = None, False
        # Reflexion's max_iters: the last implementation goes to check() whatever its tests said.
        if run.passed or last_trial:
            hidden = CheckScript(script=problem.test, entry_point=problem.entry_point)
            check = run_tests(implementation.code, hidden, protocol.check_limits, preamble=TYPING_PREAMBLE)
            check_status, success = check.status, check.passed
        feedback = feedback_text(run, protocol.feedback)
        return Attempt(
            task_text=problem.prompt,
            trajectory=[Step(action=implementation.code, observation=feedback)],
            success=success,
            end_reason=INTERNAL_PASSED if run.passed else INTERNAL_FAILED,
            scenario=feedback,
            env_s=time.perf_counter() - started,
            details=CodeAttempt(
                internal_tests=written,
                tests_run=kept,
                implementation=implementation,
                internal_status=run.status,
                check_status=check_status,
                signals=internal_signals(run, problem.entry_point),
            ),
        )

    def finished(self, success: bool, end_reason: str) -> bool:
        return success or end_reason == INTERNAL_PASSED

    def data_hashes(self) -> dict[str, str]:
        return {"problems": hashlib.sha256(data_bytes()).hexdigest(), "prompts": prompts_hash("humaneval")}


def build(env: HumanEvalEnvConfig, only: frozenset[str] | None = None) -> HumanEvalDomain:
    """The domain of a run's env config; `only`: the held-out tasks it keeps (None: all it selects)."""
    protocol = CodeProtocol(
        max_tests=env.max_tests,
        test_filter=env.test_filter,
        feedback=env.feedback,
        code_extraction=env.code_extraction,
        test_limits=SandboxLimits(timeout_s=env.test_timeout_s),
        check_limits=SandboxLimits(timeout_s=env.check_timeout_s),
    )
    problems = select_problems(load_problems(), ids=env.problems or None, first_n=env.first_n)
    if only is not None:
        problems = [problem for problem in problems if problem.task_id in only]
        if not problems:
            raise GameNotFoundError(
                f"env.problems={env.problems}, env.first_n={env.first_n} and env.frozen_in={env.frozen_in} together "
                "select no problem; loosen one of them."
            )
    return HumanEvalDomain(problems, protocol)
