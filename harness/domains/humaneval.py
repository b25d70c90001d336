"""HumanEval as a domain: Reflexion's programming loop, every execution in the sandbox.

Trial 0 writes the internal tests (kept for the whole task) and a first implementation; a later trial
writes an improved implementation from the previous code, its test feedback and the reflections in the
window (with no reflection, as under no_memory, it starts again from the prompt). Once the internal
tests pass, the real check() decides success and the task ends, as in Reflexion: its loop stops as soon
as its own tests pass. Signals shown to reflectors come from the internal tests only, never from check().
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence

from envs.humaneval import HumanEvalProblem, data_bytes
from harness.code_actor import (
    InternalTests,
    feedback_text,
    first_implementation,
    improved_implementation,
    internal_tests,
)
from harness.code_attempt import CodeAttempt
from harness.code_mention import failed_test_mention
from harness.code_signals import CodeSignals, extract_code_signals
from harness.domains._base import Attempt, Domain
from harness.domains._hashing import prompts_hash
from harness.metering import MeteredLLM
from harness.metrics import MentionCounts
from harness.prompts import read_prompt
from harness.records import TrialRecord
from harness.sandbox import AssertTests, CheckScript, SandboxLimits, run_tests
from harness.trajectory import Step

INTERNAL_PASSED = "internal_tests_passed"
INTERNAL_FAILED = "internal_tests_failed"
NO_SIGNALS = CodeSignals(
    failed_asserts=[],
    exceptions=[],
    timeout=False,
    resource_limit=None,
    killed_by=None,
    exited_early=False,
    unfinished=None,
)


class HumanEvalDomain(Domain):
    """The chosen problems; each trial is one implementation run against the internal tests."""

    name = "humaneval"
    max_steps = 1

    def __init__(self, problems: Sequence[HumanEvalProblem], max_tests: int, limits: SandboxLimits) -> None:
        self.problems = {problem.task_id: problem for problem in problems}
        self.max_tests = max_tests
        self.limits = limits

    def task_ids(self) -> list[str]:
        return list(self.problems)

    def _tests(
        self, problem: HumanEvalProblem, earlier: Sequence[TrialRecord], actor: MeteredLLM, seed: int
    ) -> tuple[InternalTests | None, list[str]]:
        """The tests written now (trial 0) or None, and the asserts to run: trial 0's kept ones."""
        first = earlier[0].attempt_details if earlier else None
        if first is not None and first.internal_tests is not None:
            return None, first.internal_tests.kept
        written: InternalTests = internal_tests(problem, actor, seed, self.max_tests)
        return written, written.kept

    def play(
        self,
        task_id: str,
        window: list[str],
        earlier: Sequence[TrialRecord],
        actor: MeteredLLM,
        seed: int,
        on_step: Callable[[int], None],
    ) -> Attempt:
        problem = self.problems[task_id]
        on_step(1)
        written, kept = self._tests(problem, earlier, actor, seed)
        previous = earlier[-1].attempt_details if earlier else None
        if window and previous is not None:
            implementation = improved_implementation(
                problem, previous.implementation.code, earlier[-1].trajectory[-1].observation, window, actor, seed
            )
        else:
            implementation = first_implementation(problem, actor, seed)
        started = time.perf_counter()
        if kept:
            suite = AssertTests(asserts=kept)
            verdict = run_tests(implementation.code, suite, self.limits)
            feedback = feedback_text(verdict, suite)
            signals = extract_code_signals(verdict, suite, problem.entry_point)
            internal_status, internal_passed = verdict.status, verdict.passed
        else:
            # Reflexion treats a task without usable tests as passing them and goes straight to check().
            feedback = feedback_text_without_tests()
            signals, internal_status, internal_passed = NO_SIGNALS, "no_tests", True
        check_status, success = None, False
        if internal_passed:
            hidden = CheckScript(script=problem.test, entry_point=problem.entry_point)
            check = run_tests(implementation.code, hidden, self.limits)
            check_status, success = check.status, check.passed
        return Attempt(
            task_text=problem.prompt,
            trajectory=[Step(action=implementation.code, observation=feedback)],
            success=success,
            end_reason=INTERNAL_PASSED if internal_passed else INTERNAL_FAILED,
            scenario=feedback,
            env_s=time.perf_counter() - started,
            details=CodeAttempt(
                internal_tests=written,
                tests_run=kept,
                implementation=implementation,
                internal_status=internal_status,
                check_status=check_status,
                signals=signals,
            ),
        )

    def finished(self, success: bool, end_reason: str) -> bool:
        return success or end_reason == INTERNAL_PASSED

    def target(self, task_id: str) -> str:
        return "a failed test case"

    def mentions(self, records: Sequence[TrialRecord]) -> MentionCounts:
        pairs = [
            (r.reflection, r.attempt_details.signals.failed_cases if r.attempt_details else [])
            for r in sorted(records, key=lambda r: r.trial)
            if r.reflection is not None
        ]
        return failed_test_mention(pairs)

    def data_hashes(self) -> dict[str, str]:
        return {"problems": hashlib.sha256(data_bytes()).hexdigest(), "prompts": prompts_hash("humaneval")}


def feedback_text_without_tests() -> str:
    """The feedback block of a run with no internal test at all."""
    return read_prompt("humaneval/test_feedback.txt").format(passed="", failed="")
