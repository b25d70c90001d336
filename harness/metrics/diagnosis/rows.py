"""The heuristic rows: what a parser with no model would name as the decisive step, read as a diagnosis and scored
like a reflection. Beside the chance row (`scores.expected_random`) they say what a condition's figure means: a
condition that names the first "Nothing happens." no more often than the parser does has learned nothing the
parser did not already see. The `programmatic` condition is shown these signals, so its trials whose decisive step
is an invalid action or a loop are reported apart (`summary.STRATA`).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records.alfworld import NOTHING_HAPPENS, FailureSignals
from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.humaneval import CodeSignals
from harness.records.step import Step

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


def first_nothing_happens(steps: Sequence[Step]) -> ReflectionClaims:
    """The first step the environment answered "Nothing happens." (an invalid action); none: names no step."""
    first = next((n for n, step in enumerate(steps, start=1) if step.observation == NOTHING_HAPPENS), None)
    return _claims([first] if first else [], "invalid_action" if first else None)


def first_loop_start(signals: FailureSignals) -> ReflectionClaims:
    """The first step of the first action loop the parser found; none: names no step."""
    first = signals.loops[0].start_step if signals.loops else None
    return _claims([first] if first else [], "loop" if first else None)


def parser_signals(signals: FailureSignals) -> ReflectionClaims:
    """The parser's signals as one diagnosis: its earliest signalled step (an invalid action or a loop's start, the
    repeated-action stop failing both) with that signal's cause; only a spent budget: no step, `search_budget`."""
    signalled = [(n.step, "invalid_action") for n in signals.nothing_happens]
    signalled += [(loop.start_step, "loop") for loop in signals.loops]
    if not signalled and signals.exhausted is not None:
        signalled = [(signals.exhausted.step, "loop")]
    if signalled:
        step, cause = min(signalled)
        return _claims([step], cause)
    return _claims([], "search_budget" if signals.budget is not None else None)


def alfworld_rows(truth: GroundTruth, steps: Sequence[Step], signals: FailureSignals | None) -> dict[str, ReflectionClaims]:
    """Every stored heuristic row of one ALFWorld trial (the parser's rows only where its signals are given)."""
    rows = {LAST_STEP: last_step(truth), FIRST_NOTHING_HAPPENS: first_nothing_happens(steps)}
    if signals is not None:
        rows |= {FIRST_LOOP_START: first_loop_start(signals), PARSER_SIGNALS: parser_signals(signals)}
    return rows


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
