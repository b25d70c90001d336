"""What a HumanEval reflection states about its own attempt that the attempt does not hold, beyond quoted code: a
construct the code is said to use (a while loop it lacks), a name it is said to use or access that it never writes,
a name it is said to leave undefined that it defines (a parameter), a line quoted as the implementation's at a line
number, test runs narrated that the feedback never printed (rubric version 3, tests/fixtures/diagnosis/humaneval/),
and (rules version 5) an operation the code is said not to perform that it performs (`abs`, a primality test).

Each finder takes the reflection's own words (code blocks and a template's FAILED STEP blanked, same length) and
returns (start, end, what is false) spans; a sentence that proposes or supposes (should, would, need to, NEW PLAN) states
nothing of the attempt.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Span = tuple[int, int, str]

_SUBJECT = (
    r"(?:the (?:original |provided |current |given |existing )?(?:code|implementation|function|solution|algorithm)|"
    r"it|your code|my code)"
)
_CONSTRUCTS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "while loop": (r"while[- ]loop", lambda code: re.search(r"^\s*while\b", code, re.MULTILINE) is not None),
    "for loop": (r"for[- ]loop", lambda code: re.search(r"^\s*(?:async\s+)?for\b", code, re.MULTILINE) is not None),
    "ternary operator": (r"ternary (?:operator|expression)", lambda code: re.search(r"\bif\b[^\n:]*\belse\b", code) is not None),
    "lambda": (r"lambda(?: function)?", lambda code: re.search(r"\blambda\b", code) is not None),
    "list comprehension": (r"list comprehension", lambda code: re.search(r"\[[^\]\n]*\bfor\b", code) is not None),
    "static method": (r"static method", lambda code: "@staticmethod" in code),
}  # fmt: skip
"""A construct a reflection may say the code uses: its words, and whether the code holds it."""
_USES_RE = re.compile(
    rf"\b{_SUBJECT} (?:\w+ ){{0,2}}?(?:uses|is using|used|contains|has|relies on|employs) (?:an? |the )?"
    rf"(?:\w+ )?({'|'.join(words for words, _ in _CONSTRUCTS.values())})\b",
    re.IGNORECASE,
)
_ATTEMPT_RE = re.compile(
    r"\bimplementation\b|\b(?:original|provided|current|given|existing) (?:code|function|solution)\b|\b(?:the|my) code\b",
    re.IGNORECASE,
)
"""Words that put a sentence about the attempt itself; "the function" or "it" does so only before any code the
reflection proposes (after it, they are as likely the proposal)."""
_NAME = r"[`'\"]([A-Za-z_][A-Za-z0-9_]*)[`'\"]"
_ACCESS_RE = re.compile(
    rf"\b(?:attempts to |tries to |trying to |(?<!\bto ))(?:uses?|using|access(?:es|ing)?|calls?|calling) (?:the )?{_NAME}"
    r"(?: (?:attribute|keyword|method|variable|function))?",
    re.IGNORECASE,
)
_UNDEFINED_RE = re.compile(
    rf"{_NAME}[^.;\n]{{0,60}}?\b(?:is|was|were) not (?:defined|declared)|\bwithout (?:being )?defin|"
    rf"\bundefined (?:variable |name )?{_NAME}|\buse of {_NAME}[^.;\n]{{0,60}}?without (?:being )?defin",
    re.IGNORECASE,
)
_ABOUT_CODE_RE = re.compile(r"\bimplementation\b|\bfunction (?:body|definition)\b|\breturn statement\b|\bthe code\b",
                            re.IGNORECASE)  # fmt: skip
_QUOTED_LINE_RE = re.compile(r"\bline \d+ of the (?:implementation|code|function)\W{0,3}\s*\"([^\"\n]+)\"", re.IGNORECASE)
_NARRATED_RE = re.compile(
    r"\btest (?:results?|run) (?:was|were|is|shows?)\b|\bunit tests? passed and failed (?:was|were)\b", re.IGNORECASE
)
_CALLS_RE = re.compile(r"\b(?:function|it) (?:is|was) called \d+ times\b", re.IGNORECASE)
_TEST_LINE_RE = re.compile(r"^\s*(?:assert\b|def test|@pytest|self\.assert)[^\n]*", re.MULTILINE)
NARRATED_REACH = 400
"""Characters after "the test result was" where the test it narrates is written."""
_TESTED_RE = re.compile(r"\b(?:an? |the )?(empty (?:string|list)|negative numbers?|zero) (?:is|was|were) tested\b",
                        re.IGNORECASE)  # fmt: skip
_SUPPOSING_RE = re.compile(
    r"\b(?:should|must|would|could|need to|needs to|NEW PLAN|if we|instead of|we can|can be|to fix|to overcome)\b",
    re.IGNORECASE,
)
_APPLIED_RE = re.compile(rf"\b(?:applied to|called on|passed to) (?:an? |the )?{_NAME}", re.IGNORECASE)
_LOOP_VARIABLE_RE = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\b")
_TRIAL_DIVISION = r"%\s*{name}\s*==\s*0\b"
_OPERATIONS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "absolute value": (r"\babsolute\b|\babs\b", lambda code: re.search(r"\b(?:abs|fabs)\(", code) is not None),
    "primality test": (r"\bprim(?:e|es|ality)\b", lambda code: _tests_primality(code)),
    "parity test": (r"\b(?:even|odd)\b", lambda code: re.search(r"%\s*2\b", code) is not None),
    "sort": (r"\bsort(?:s|ed|ing)?\b", lambda code: re.search(r"\bsorted\(|\.sort\(", code) is not None),
    "reversal": (r"\brevers(?:e|es|ed|ing|al)\b",
                 lambda code: re.search(r"\breversed\(|\.reverse\(|\[::-1\]", code) is not None),
    "case conversion": (r"\b(?:lower|upper) ?case\b",
                        lambda code: re.search(r"\.(?:lower|upper|swapcase|casefold)\(", code) is not None),
    "square root": (r"\bsquare roots?\b|\bsqrt\b", lambda code: re.search(r"\bsqrt\(|\*\*\s*0?\.5\b", code) is not None),
}  # fmt: skip
"""An operation a reflection may say the code does not perform: its words, and whether the code performs it."""
_DENIED_RE = re.compile(
    r"\b(?:does not|doesn't|did not|didn't|never|fails to|failed to|forgets to|forgot to|neglects to) (?:\w+ )?"
    r"(?:check|verify|test|convert|take|use|call|apply|compute|calculate|sort|reverse|consider|account for)\b"
    r"[^.;:,\n]{0,80}",
    re.IGNORECASE,
)
_QUALIFIED_RE = re.compile(
    r"\b(?:correctly|properly|accurately|appropriately|right|correct|all|every|each|both|only|order|ascending|"
    r"descending|by|key)\b",
    re.IGNORECASE,
)
"""A denial qualified ("does not correctly check", "does not check every divisor", "does not sort by the digit sum")
judges how the code does it: a diagnosis."""


_SENTENCE_ENDS = (". ", '." ', "\n", "; ")


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the sentence around text[start:end] starts and ends (a quotation closing it ends it too)."""
    left = max(text.rfind(mark, 0, start) for mark in _SENTENCE_ENDS)
    rights = [i for i in (text.find(mark, end) for mark in _SENTENCE_ENDS) if i != -1]
    return left + 1, min(rights, default=len(text))


def sentence(text: str, start: int, end: int) -> str:
    """The sentence around text[start:end]."""
    left, right = sentence_bounds(text, start, end)
    return text[left:right]


def _stated(text: str, m: re.Match[str]) -> bool:
    return _SUPPOSING_RE.search(sentence(text, m.start(), m.end())) is None


def _about_attempt(full: str, text: str, m: re.Match[str]) -> bool:
    """Whether the sentence around `m` speaks of the attempt: it names it, or no code block comes before it."""
    if _ATTEMPT_RE.search(sentence(text, m.start(), m.end())):
        return True
    block = full.find("```")
    return block == -1 or m.start() < block


def _code_only(implementation: str) -> str:
    """The implementation without its docstrings and comments: a word in prose there is no construct or name used."""
    code = re.sub(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'', "", implementation)
    return re.sub(r"#[^\n]*", "", code)


def _defined_names(code: str) -> set[str]:
    signatures = [m.group(1) for m in re.finditer(r"\bdef \w+\(([^)]*)\)", code)]
    parameters = {p.split(":")[0].split("=")[0].strip().lstrip("*") for group in signatures for p in group.split(",")}
    assigned = set(re.findall(r"^\s*([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)", code, re.MULTILINE))
    loops = set(re.findall(r"\bfor\s+([A-Za-z_]\w*)", code))
    return {name for name in parameters | assigned | loops if name}


def constructs(text: str, full: str, implementation: str) -> list[Span]:
    """A construct the code is said to use that it does not."""
    code = _code_only(implementation)
    found = []
    for m in _USES_RE.finditer(text):
        said = m.group(1).lower()
        if not (_stated(text, m) and _about_attempt(full, text, m)):
            continue
        for name, (words, holds) in _CONSTRUCTS.items():
            if re.fullmatch(words, said, re.IGNORECASE) and not holds(code):
                found.append((m.start(1), m.end(1), f"a {name} the implementation does not have"))
    return found


def names(text: str, full: str, implementation: str) -> list[Span]:
    """A name the code is said to use or access that it never writes, and one it is said to leave undefined that it
    defines."""
    code = _code_only(implementation)
    written = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    found = []
    for m in _ACCESS_RE.finditer(text):
        said = sentence(text, m.start(), m.end())
        about_code = re.search(rf"\b{_SUBJECT}\b", said, re.IGNORECASE) is not None and _about_attempt(full, text, m)
        if about_code and m.group(1) not in written and _stated(text, m) and "test" not in said.lower():
            found.append((m.start(1), m.end(1), f"{m.group(1)}, which the implementation never writes"))
    for m in _APPLIED_RE.finditer(text):
        if m.group(1) not in written and _stated(text, m) and _about_attempt(full, text, m):
            found.append((m.start(1), m.end(1), f"{m.group(1)}, which the implementation never writes"))
    defined = _defined_names(code)
    for m in _UNDEFINED_RE.finditer(text):
        left, right = sentence_bounds(text, m.start(), m.end())
        # "without being defined" names no one: the name is the last one quoted before it in its sentence.
        before = re.findall(_NAME, text[left : m.start()])
        name = next((g for g in m.groups() if g), before[-1] if before else None)
        if name in defined and _ABOUT_CODE_RE.search(text[left:right]) and _stated(text, m):
            found.append((m.start(), m.end(), f"{name} undefined, where the implementation defines it"))
    return found


def _tests_primality(code: str) -> bool:
    """A call of a function named for primes, or trial division by a loop variable (`n % i == 0` in `for i in`)."""
    if re.search(r"\b\w*prime\w*\(", code, re.IGNORECASE):
        return True
    return any(re.search(_TRIAL_DIVISION.format(name=re.escape(name)), code) for name in _LOOP_VARIABLE_RE.findall(code))


def denied_operations(text: str, full: str, implementation: str) -> list[Span]:
    """An operation the code is said not to perform that it performs ("does not convert the numbers to their absolute
    values" of code calling `abs`); a qualified denial, or one in a sentence that proposes, states nothing false."""
    code = _code_only(implementation)
    found = []
    for m in _DENIED_RE.finditer(text):
        if _QUALIFIED_RE.search(m.group()) or not (_stated(text, m) and _about_attempt(full, text, m)):
            continue
        for name, (words, holds) in _OPERATIONS.items():
            if re.search(words, m.group(), re.IGNORECASE) and holds(code):
                found.append((m.start(), m.end(), f"no {name}, where the implementation performs one"))
                break
    return found


def loop_value(snippet: str, implementation: str) -> bool:
    """Whether a quoted snippet states a value or bound of one of the code's loop variables (`i = 3`, `i < n + 1` of
    `for i in range(3, n + 1)`): a description of what the loop runs over, not code quoted as the implementation's."""
    m = re.match(r"([A-Za-z_]\w*)\s*(?:=|==|<|<=|>|>=)\s*[^=\s]", snippet)
    return m is not None and m.group(1) in _LOOP_VARIABLE_RE.findall(_code_only(implementation))


def quoted_lines(text: str, implementation: str) -> list[Span]:
    """A line quoted as the implementation's at a line number that the implementation does not hold."""
    flat = " ".join(implementation.split())
    return [
        (m.start(1), m.end(1), "a line the implementation does not hold")
        for m in _QUOTED_LINE_RE.finditer(text)
        if " ".join(m.group(1).split()) not in flat
    ]


def narrated_tests(text: str, full: str, feedback: str, failed_classes: set[str]) -> list[Span]:
    """Test runs or calls told as having happened that the feedback never printed: a test written after "the test
    result was" (in `full`, the reflection with its code blocks) that the feedback does not hold, a count of calls,
    a test on an input class no failed test had."""
    shown = " ".join(feedback.split())
    found = []
    for m in _NARRATED_RE.finditer(text):
        tests = _TEST_LINE_RE.findall(full, m.end(), m.end() + NARRATED_REACH)
        if any(" ".join(test.split()) not in shown for test in tests):
            found.append((m.start(), m.end(), "a test run the feedback never printed"))
    found += [(m.start(), m.end(), "calls the feedback never counted") for m in _CALLS_RE.finditer(text)]
    classes = {"empty string": "empty", "empty list": "empty", "negative number": "negative", "zero": "zero"}
    for m in _TESTED_RE.finditer(text):
        said = classes[m.group(1).lower().rstrip("s")]
        if said not in failed_classes:
            found.append((m.start(), m.end(), f"a test on {m.group(1)} the feedback never listed"))
    return found
