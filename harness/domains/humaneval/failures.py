"""What failed in a HumanEval run, as a reflection may name it: the failed tests and the error types.

From a record, the sandbox's signals (`CodeSignals`). From a line of text, the feedback as Reflexion writes it
(`assert add(1, 2) == 3 # output: -1`), as the harness renders its signals (`Test `assert ...` failed: add(1, 2)
returned -1, expected 3.`, `Test `...` raised IndexError: ...`, `Loading the code raised SyntaxError: ...`), or an
error line alone (`IndexError: list index out of range`, `timeout`). An error type is an exception's class, a time
limit, or for a false assert a wrong result.
"""

from __future__ import annotations

import builtins
import re
from functools import cache

from harness.domains.humaneval.signals import checked_call
from harness.records.humaneval import CheckedCall, CodeSignals, FailedAssert

WRONG_RESULT = "wrong result"
TIME_LIMIT = "time limit"
_TIME_LIMIT_RE = re.compile(r"\b(?:time ?out|timed out|time limit|infinite loop|too slow|runs? forever)\b", re.I)
_WRONG_RESULT_RE = re.compile(
    r"\b(?:assertion ?error|assert(?:ion)? (?:error|fail(?:s|ed|ure)?)|(?:wrong|incorrect) (?:output|result|value|"
    r"answer|return value))\b",
    re.I,
)
_OUTPUT_MARK = "# output:"
# The harness's rendering of one failed assert: the test in backticks, then what it returned and what was expected.
_RENDERED_TEST_RE = re.compile(r"Test `(?P<source>[^`\n]+)` (?P<how>failed|raised)")
_RENDERED_VALUES_RE = re.compile(r"(?:returned|the left side was) (?P<actual>.+?)(?:, expected (?P<expected>.+?))?\.$")


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
    return next((name for name in dir(builtins) if name.lower() == squeezed), text)


def named_types(text: str) -> list[tuple[str, re.Match[str]]]:
    """Every error type the text names, with where, in order."""
    found = [(_exception_type(m.group()), m) for m in _exception_pattern().finditer(text)]
    found += [(TIME_LIMIT, m) for m in _TIME_LIMIT_RE.finditer(text)]
    found += [(WRONG_RESULT, m) for m in _WRONG_RESULT_RE.finditer(text)]
    return sorted(found, key=lambda item: item[1].start())


def names_error_type(text: str) -> bool:
    """Whether a reflection names some specific error type at all (an exception, a time limit, a wrong result): what a
    log without the run's feedback can still say of it."""
    return bool(named_types(text))


def failure_types(signals: CodeSignals) -> set[str]:
    """The error types of one run: its exceptions by class, WRONG_RESULT for a false assert, TIME_LIMIT."""
    types = {error.type for error in signals.exceptions}
    if signals.failed_asserts:
        types |= {WRONG_RESULT, "AssertionError"}
    if signals.timeout:
        types.add(TIME_LIMIT)
    if signals.resource_limit and "memory" in signals.resource_limit:
        types.add("MemoryError")
    return types


def _false_assert(case: CheckedCall, actual: str | None, expected: str | None) -> FailedAssert:
    return FailedAssert(
        **case.model_dump(), expected=expected, actual=actual, operator=None, call_is_compared=True, test=0, line=None
    )


def _reflexion_line(line: str, entry_point: str) -> tuple[list[CheckedCall], set[str]]:
    statement, _, output = line.partition(_OUTPUT_MARK)
    case, output = checked_call(statement.strip(), entry_point), output.strip()
    if _exception_pattern().match(output) or _TIME_LIMIT_RE.search(output):
        return [case], set()
    return [_false_assert(case, output, None) if output else case], {WRONG_RESULT, "AssertionError"}


def _rendered_line(match: re.Match[str], line: str, entry_point: str) -> tuple[list[CheckedCall], set[str]]:
    case = checked_call(match.group("source"), entry_point)
    if match.group("how") == "raised":
        return [case], set()
    values = _RENDERED_VALUES_RE.search(line, match.end())
    if values is None:
        return [case], {WRONG_RESULT, "AssertionError"}
    return [_false_assert(case, values.group("actual"), values.group("expected"))], {WRONG_RESULT, "AssertionError"}


def failure_of_line(failed_test: str, entry_point: str) -> tuple[list[CheckedCall], set[str]]:
    """The failed tests and error types a feedback text says, one line at a time (see the module's formats)."""
    cases: list[CheckedCall] = []
    types = {kind for kind, _ in named_types(failed_test)}
    for line in failed_test.splitlines():
        line = line.strip()
        rendered = _RENDERED_TEST_RE.search(line)
        if rendered is not None:
            found, more = _rendered_line(rendered, line, entry_point)
        elif line.startswith("assert"):
            found, more = _reflexion_line(line, entry_point)
        else:
            continue
        cases += found
        types |= more
    return cases, types
