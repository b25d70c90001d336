"""The heuristic rows: what a parser with no model would name as the decisive step, read as a diagnosis and scored
like a reflection (ALFWorld's step choices are its domain's: harness/domains/alfworld/diagnosis_baselines.py, read
by harness/run/diagnosis_stage.py). Beside the chance row (`scores.expected_random`) they say what a condition's figure means: a
condition that names the first "Nothing happens." no more often than the parser does has learned nothing the
parser did not already see. The `programmatic` condition is shown these signals, so its trials whose decisive step
is an invalid action or a loop are reported apart (`summary.STRATA`).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.humaneval import CodeSignals

RULE = "heuristic-rows/1"
RANDOM_STEP = "random step"
LAST_STEP = "last step"
FIRST_NOTHING_HAPPENS = 'first "Nothing happens."'
FIRST_LOOP_START = "first loop start"
PARSER_SIGNALS = "parser signals"
ROW_NAMES: tuple[str, ...] = (RANDOM_STEP, LAST_STEP, FIRST_NOTHING_HAPPENS, FIRST_LOOP_START, PARSER_SIGNALS)
"""Every heuristic row, in table order; the random step is the chance row, an expectation, never stored."""


def _claims(steps: Sequence[int], cause: str | None) -> ReflectionClaims:
    return ReflectionClaims(rule=RULE, claimed_steps=list(steps), cause=cause)


def last_step(truth: GroundTruth) -> ReflectionClaims:
    """The trial's last step, with no cause."""
    return _claims([truth.steps] if truth.steps else [], None)


def step_claims(step: int | None, cause: str | None) -> ReflectionClaims:
    """A heuristic's choice as claims: the step it names (none: names no step) with the cause it implies."""
    return _claims([step] if step else [], cause if step else None)


def step_rows(truth: GroundTruth) -> dict[str, ReflectionClaims]:
    """The rows any domain with several steps has: the last step."""
    return {LAST_STEP: last_step(truth)} if truth.steps > 1 else {}


def code_signals_cause(signals: CodeSignals) -> ReflectionClaims:
    """HumanEval's internal-test signals read as a cause: a timeout, an exception, else a failed assert's wrong
    result; no step (a trial is one implementation)."""
    cause = ("timeout" if signals.timeout else "exception" if signals.exceptions
             else "wrong_result" if signals.failed_asserts else None)
    return _claims([], cause)


UNSUPPORTED = "does not occur in the context"
"""HotpotQA's signal sentence for an answer found nowhere in the supporting paragraphs."""


def listed_signals_cause(lines: Sequence[str]) -> ReflectionClaims:
    """A domain's listed signals read as a cause: HotpotQA's answer found nowhere in the context is
    `unsupported_answer`; any other signal names no cause."""
    return _claims([], "unsupported_answer" if any(UNSUPPORTED in line for line in lines) else None)
