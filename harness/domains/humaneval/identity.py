"""Which failure a code reflection diagnoses: the failed test, the error type of the failure, or neither.

The study's "18/18 reflections included specific error types" asks whether a reflection names what went wrong. A
failure is the run's failed tests (`CodeSignals.failed_cases`, or a false assert's expected or returned value) and its
error types: the exceptions that escaped, a time limit, or for a false assert a wrong result ("AssertionError",
"wrong output").

- on_task: names a failed test (by its call or all its inputs, the normalized mention rule) or an error type the
  run had;
- off_task: names only error types the run did not have, or only tests that passed;
- vacuous: names no test and no error type.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from functools import cache

from harness.domains.humaneval.mention import case_spans, mentions_case, value_pattern
from harness.records.humaneval import CheckedCall, CodeSignals, FailedAssert
from harness.domains.humaneval.signals import checked_call
from harness.records import TrialRecord
from harness.records.identity import IdentityEvidence, ReflectionIdentity

RULE = "humaneval/1"
IDENTITY_NOTE = (
    "HumanEval task identity: on_task names a failed test or an error type the run had (an exception, a time limit, "
    "a wrong result); off_task names only error types or tests that did not fail; vacuous names neither."
)
WRONG_RESULT = "wrong result"
TIME_LIMIT = "time limit"
_TIME_LIMIT_RE = re.compile(r"\b(?:time ?out|timed out|time limit|infinite loop|too slow|runs? forever)\b", re.I)
_WRONG_RESULT_RE = re.compile(
    r"\b(?:assertion ?error|assert(?:ion)? (?:error|fail(?:s|ed|ure)?)|(?:wrong|incorrect) (?:output|result|value|"
    r"answer|return value))\b",
    re.I,
)
# "expected [1, 2, 1]", "the expected output is [1, 2, 1] but the actual output is [1]": the value within a few words.
_EXPECTED_RE = r"\bexpected\b[^.;\n]{0,30}?"
_RETURNED_RE = r"\b(?:actual|returned|returns|returning|output|outputs|outputted|gave|gives|got)\b[^.;\n]{0,30}?"


@cache
def _exception_pattern() -> re.Pattern[str]:
    """Python's built-in exception names, CamelCase or spaced ("IndexError", "index error")."""
    names = sorted(
        (n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)),
        key=len,
        reverse=True,
    )
    forms = [r"\s?".join(re.findall(r"[A-Z][a-z]*", name)) for name in names if name not in ("Exception", "BaseException")]
    return re.compile(r"\b(?:" + "|".join(forms) + r")\b", re.I)


def _exception_type(text: str) -> str:
    """`IndexError` for "index error", "IndexError" or "indexerror"."""
    squeezed = "".join(text.split()).lower()
    for name in dir(builtins):
        if name.lower() == squeezed:
            return name
    return text


def failure_types(signals: CodeSignals) -> set[str]:
    """The error types of one run: its exceptions by class, WRONG_RESULT for a false assert, TIME_LIMIT."""
    types = {error.type for error in signals.exceptions}
    if signals.failed_asserts:
        types.add(WRONG_RESULT)
        types.add("AssertionError")
    if signals.timeout:
        types.add(TIME_LIMIT)
    if signals.resource_limit and "memory" in signals.resource_limit:
        types.add("MemoryError")
    return types


def _named_types(text: str) -> list[tuple[str, re.Match[str]]]:
    found = [(_exception_type(m.group()), m) for m in _exception_pattern().finditer(text)]
    found += [(TIME_LIMIT, m) for m in _TIME_LIMIT_RE.finditer(text)]
    found += [(WRONG_RESULT, m) for m in _WRONG_RESULT_RE.finditer(text)]
    return sorted(found, key=lambda item: item[1].start())


def names_error_type(text: str) -> bool:
    """Whether a reflection names some specific error type at all (an exception, a time limit, a wrong result): what a
    log without the run's feedback can still say of it."""
    return bool(_named_types(text))


def _evidence(kind: str, match: re.Match[str] | tuple[str, int, int], means: str) -> IdentityEvidence:
    text, start, end = (match.group(), match.start(), match.end()) if isinstance(match, re.Match) else match
    return IdentityEvidence(kind=kind, text=text, start=start, end=end, means=means, counts=True)


def _case_evidence(text: str, case: CheckedCall, means: str) -> IdentityEvidence | None:
    """Where the reflection names one test: its call or all its inputs, or a false assert's expected or returned value."""
    if mentions_case(text, case, "normalized"):
        span = case_spans(text, case)[0]
        return _evidence("failed_test", (text[span.start : span.end], span.start, span.end), means)
    if isinstance(case, FailedAssert):
        for lead, value in ((_EXPECTED_RE, case.expected), (_RETURNED_RE, case.actual)):
            match = re.search(lead + value_pattern(value).pattern, text) if value else None
            if match:
                return _evidence("failed_test", match, means)
    return None


def reflection_identity(
    text: str, failed: Sequence[CheckedCall], types: set[str], passed: Sequence[CheckedCall] = ()
) -> ReflectionIdentity:
    """The label of one code reflection against its run: the failed tests, the run's error types, the passed tests."""
    on = [e for case in failed if (e := _case_evidence(text, case, case.source)) is not None]
    off: list[IdentityEvidence] = []
    for kind, match in _named_types(text):
        had = kind in types
        means = kind if had else f"{kind} (the run had: {', '.join(sorted(types)) or 'no error'})"
        (on if had else off).append(_evidence("error_type", match, means))
    failed_calls = {case.call for case in failed}
    off += [
        e
        for case in passed
        if case.call not in failed_calls and (e := _case_evidence(text, case, f"{case.source} (passed)")) is not None
    ]
    if on:
        label, deciding, rest = "on_task", on, off
    elif off:
        label, deciding, rest = "off_task", off, on
    else:
        label, deciding, rest = "vacuous", [], []
    evidence = deciding + [e.model_copy(update={"counts": False}) for e in rest]
    return ReflectionIdentity(label=label, rule=RULE, evidence=sorted(evidence, key=lambda e: (e.start, e.end)))


def record_identity(record: TrialRecord) -> ReflectionIdentity | None:
    """The identity of a record's reflection against the run it reflects on; None when it wrote none."""
    if record.reflection is None:
        return None
    details = record.attempt_details
    if details is None or details.kind != "humaneval":
        return reflection_identity(record.reflection, [], set())
    signals = details.signals
    failed = signals.failed_cases
    failed_sources = {case.source for case in failed}
    # The function under test, as the failed tests call it: what the passed tests are parsed against.
    callee = next((case.call.split("(", 1)[0] for case in failed if case.call), None)
    passed = [checked_call(t, callee) for t in details.tests_run if callee and t not in failed_sources]
    return reflection_identity(record.reflection, failed, failure_types(signals), passed)


_OUTPUT_MARK = "# output:"


def failure_of_line(failed_test: str, entry_point: str) -> tuple[list[CheckedCall], set[str]]:
    """The failed test and error types a line such as `assert add(1, 2) == 3 # output: -1` (Reflexion's feedback),
    `IndexError: list index out of range` or `timeout` says."""
    statement, _, output = failed_test.partition(_OUTPUT_MARK)
    types = {kind for kind, _ in _named_types(failed_test)}
    cases: list[CheckedCall] = []
    if statement.strip().startswith("assert"):
        case = checked_call(statement.strip(), entry_point)
        output = output.strip()
        if not _exception_pattern().match(output) and not _TIME_LIMIT_RE.search(output):
            types |= {WRONG_RESULT, "AssertionError"}
            if output:
                case = FailedAssert(
                    **case.model_dump(), expected=None, actual=output, operator=None, call_is_compared=True, test=0,
                    line=None,
                )  # fmt: skip
        cases.append(case)
    return cases, types


def line_identity(item: dict[str, object]) -> ReflectionIdentity:
    """`python -m harness.metrics.identity`'s line {"task": "HumanEval/<n>", "text", "failed_test"}."""
    from envs.humaneval import load_problems  # only the command needs the problems' entry points

    task, failed_test = item.get("task"), item.get("failed_test")
    if not isinstance(failed_test, str):
        raise ValueError("a humaneval line needs 'failed_test': the failed assert (or error line) as a string.")
    problem = next((p for p in load_problems() if p.task_id == task), None)
    if problem is None:
        raise ValueError(f"task {task!r} is not a HumanEval problem id; accepted: 'HumanEval/<number>'.")
    cases, types = failure_of_line(failed_test, problem.entry_point)
    return reflection_identity(str(item["text"]), cases, types)
