"""Object mention for code: does a reflection name a specific failed test case?

The ALFWorld study asks whether a reflection names the task's target object; on HumanEval the object
of a failure is the test case it failed on. Pure functions over strings and parsed tests.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from harness.records.humaneval import CheckedCall
from harness.metrics.core import MentionCounts
from harness.metrics.object_mention import MentionSpan, MentionVariant
from harness.records import TrialRecord


MENTION_NOTE = (
    "HumanEval: the object is a failed test case; strict: its call exactly as the test wrote it (e.g. add(1, 2)); "
    "normalized: the call with whitespace ignored, or every input value as its own token."
)


def _squeeze(text: str) -> str:
    return "".join(text.split())


def value_pattern(value: str) -> re.Pattern[str]:
    """The value as written, any whitespace run free to vary or vanish ("[1,2]" finds "[1, 2]"), never inside a
    longer token: "1" is not found in "10", "0.1", "-1" or "x1"."""
    body = r"\s*".join(re.escape(part) for part in value.split())
    before = r"(?<![\w.-])" if re.match(r"[\w.]", value) else ""
    after = r"(?![\w]|\.\d)" if re.search(r"\w$", value) else ""
    return re.compile(before + body + after)


def _forms(value: str) -> list[str]:
    """How a reflection may write an input: its repr, or for a non-blank string its content."""
    try:
        literal = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return [value]
    if isinstance(literal, str) and literal.strip():
        return [value, literal]
    return [value]


def _names_inputs(reflection: str, inputs: Sequence[str]) -> bool:
    """Every input occurs (a call without inputs names no case this way)."""
    return bool(inputs) and all(any(value_pattern(form).search(reflection) for form in _forms(value)) for value in inputs)


def mentions_case(reflection: str, case: CheckedCall, variant: MentionVariant) -> bool:
    """Whether a reflection names one test case.

    strict: the call expression exactly as the test wrote it, e.g. "add(1, 2)".
    normalized: the call with whitespace ignored ("add(1,2)" finds "add(1, 2)"), or every input value
    (its repr, or for a string its content) as its own token, e.g. "when a is 1 and b is 2".
    """
    if case.call is None:
        return False
    if variant == "strict":
        return case.call in reflection
    if variant == "normalized":
        return _squeeze(case.call) in _squeeze(reflection) or _names_inputs(reflection, case.inputs)
    raise ValueError(f"unknown mention variant {variant!r}; accepted: strict, normalized.")


def _spans(pattern: re.Pattern[str], reflection: str, variant: MentionVariant) -> list[MentionSpan]:
    matches = (m for m in pattern.finditer(reflection) if m.end() > m.start())
    return [MentionSpan(start=m.start(), end=m.end(), variant=variant) for m in matches]


def case_spans(reflection: str, case: CheckedCall) -> list[MentionSpan]:
    """Where `mentions_case` finds the case: the exact call (strict); the call with any whitespace, and every input
    value when all of them occur (normalized)."""
    if case.call is None:
        return []
    spans = _spans(re.compile(re.escape(case.call)), reflection, "strict")
    spaced = re.compile(r"\s*".join(re.escape(char) for char in _squeeze(case.call)))
    spans += _spans(spaced, reflection, "normalized")
    if _names_inputs(reflection, case.inputs):
        for value in case.inputs:
            for form in _forms(value):
                spans += _spans(value_pattern(form), reflection, "normalized")
    return spans


def mentions_failed_test(
    reflection: str, failed: Sequence[CheckedCall], variant: MentionVariant = "normalized"
) -> bool:
    """Whether a reflection names some failed test case of the run it reflects on (FailedAssert is a CheckedCall;
    CodeSignals.failed_cases adds the tests that raised and the one a stopped run did not finish)."""
    return any(mentions_case(reflection, case, variant) for case in failed)


def failed_test_mention(reflections: Sequence[tuple[str, Sequence[CheckedCall]]]) -> MentionCounts:
    """Count reflections naming a failed test case of their own run, as MentionCounts.

    Each reflection comes with the failed cases of the run it reflects on. The fields map as: reflections
    is the denominator (every reflection, a run without a known failed case included, which cannot
    mention one); strict counts the exact call expression; normalized counts the whitespace-insensitive
    call or all input values, and so includes every strict mention, as on ALFWorld.
    """
    return MentionCounts(
        reflections=len(reflections),
        strict=sum(mentions_failed_test(text, failed, "strict") for text, failed in reflections),
        normalized=sum(mentions_failed_test(text, failed, "normalized") for text, failed in reflections),
    )


TARGET = "a failed test case"
_PROBLEM_ID = re.compile(r"HumanEval/\d+")


def task_target(task_id: str) -> str:
    """What object mention looks for on code, the same for every problem; ValueError for an id that is no
    HumanEval problem's (so records without a manifest are not taken for code)."""
    if not _PROBLEM_ID.fullmatch(task_id):
        raise ValueError(f"{task_id!r} is not a HumanEval problem id; accepted: 'HumanEval/<number>'.")
    return TARGET


def reflection_spans(record: TrialRecord) -> list[MentionSpan]:
    """Where the record's reflection names a failed test case of its own run."""
    if record.reflection is None or record.attempt_details is None:
        return []
    cases = record.attempt_details.signals.failed_cases
    return [span for case in cases for span in case_spans(record.reflection, case)]


def task_mentions(records: Sequence[TrialRecord]) -> MentionCounts:
    """Object mention over one problem's reflections (one condition), each against the cases its run failed."""
    pairs = [
        (r.reflection, r.attempt_details.signals.failed_cases if r.attempt_details else [])
        for r in sorted(records, key=lambda r: r.trial)
        if r.reflection is not None
    ]
    return failed_test_mention(pairs)
