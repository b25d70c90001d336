"""What a HumanEval reflection claims about its failed trial: the hidden tests it points at, the cause it names, and
what it states of the attempt that the feedback and the implementation never held. Deterministic, on the normalised
text (`harness.domains.normalized_text`); every claim's span points into the text as written.

- Points at a hidden test (`Claim.kind` "input", `steps` the tests): it names an input class as a failing case
  (`CLASS_PATTERNS`: "an empty list", "negative numbers"), or quotes an input (a call of the function, or "the input
  ... is <literal>") whose classes or value a hidden test's call has; it names an exception type one raised, or a
  hang where one timed out; a type is named by its message too ("list index out of range": rules version 5; more of
  Python's messages in version 6). The reflection never saw the hidden tests: it points at one by naming what fails
  there.
- Cause (`Claim.kind` "cause"): the category whose words come first (`CAUSE_PATTERNS`); None when none does.
- Confabulated: an output it says the code gave ("returned 42", "the actual output is [1]") that the feedback never
  printed; an exception type neither the feedback nor the implementation holds; a hang ("infinite loop", "time out")
  where the feedback shows none; code it quotes as the implementation's (in backquotes, a statement written out in
  prose, or a code block it presents as the code, never a proposal) that the implementation does not hold; a failed
  test it describes by an input class the failed tests' inputs lack.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from harness.domains.humaneval import code_statements
from harness.domains.humaneval.code_statements import sentence
from harness.domains.humaneval.diagnosis_trial import FailedCode
from harness.domains.humaneval.diagnosis_truth import classes_of, input_classes
from harness.domains.humaneval.failures import TIME_LIMIT, WRONG_RESULT, named_types
from harness.domains.humaneval.hidden_tests import TestOutcome, failed_internal_tests
from harness.domains.normalized_text import NormalizedText, normalize_text
from harness.records.diagnosis import Claim, ReflectionClaims

RULE = "humaneval-claims/6"

CAUSE_PATTERNS: dict[str, tuple[str, ...]] = {
    "wrong_internal_test": (
        r"\btest(?: case)?(?: itself)? (?:is|was) (?:wrong|incorrect|invalid|broken)",
        r"(?:not defined|no value|missing|undefined) in the test(?: case)?", r"\btest case does not (?:provide|define)",
        r"\b(?:remove|add)\b[^.]{0,40}\b(?:from|to) the test(?: case)?\b", r"\b(?:change|correct|update) (?:the|this) test\b",
        r"expected (?:output|value|result)s? (?:in the test )?(?:is|are|was|were) (?:wrong|incorrect)",
        r"\bfix (?:the|this) test", r"test (?:case )?(?:should|must) be (?:fixed|changed|corrected)",
    ),
    "timeout": (r"infinite loop", r"never (?:terminates|ends|stops|finishes)", r"\btim(?:es|ed)? ?out\b", r"too slow",
                r"takes too long"),
    "exception": (
        r"\brais(?:es|ed|e|ing)\b", r"runtime error", r"syntax error", r"indentation error", r"\bnot defined\b",
        r"without being defined", r"\bundefined\b", r"(?:has|having) no attribute", r"\bcrash", r"\bexception\b",
    ),
    "wrong_result": (
        r"(?:returns?|returned|produces?|gives?) (?:the |an? )?(?:wrong|incorrect)", r"\bnot correctly\b",
        r"not (?:returning|return|give|giving) the (?:correct|right|expected)", r"not the correct (?:way|result|value|output)",
        r"wrong order", r"actual output", r"should (?:return|be returning)", r"\b(?:fails|breaks) (?:for|when|on)\b",
        r"returned \S+ instead of", r"incorrect (?:result|output|value|answer)s?",
        r"\breturns? (?:the|a|an) [\w' ]{0,40}\b(?:without|instead of)\b",
    ),
    "other": (r"not (?:the most |very |a very )?efficient", r"not optimal", r"\b(?:time|space) complexity"),
}  # fmt: skip
"""Each cause's words; an exception's name (IndexError, "index error") names `exception` too; `other` is a cause none of
the categories covers (speed or elegance, where the code was wrong)."""

CLASS_PATTERNS: dict[str, str] = {
    "empty": r"\bempty (?:list|string|input|array|dict|dictionary|tuple|set|sequence)s?\b|"
             r"\b(?:list|string|input|array|dict|dictionary|tuple|set|sequence)s? (?:is|are) empty\b",
    "single": r"\bsingle (?:element|item|character|value|number|digit|word|string)\b|\bone (?:element|item|character)\b|"
              r"\blength (?:of )?1\b|\bonly one (?:element|item)\b",
    "zero": r"\b(?:input|number|value|argument|integer|n|x)s? (?:is|are|equals?|equal to|of) (?:0|zero)\b|"
            r"\bzero (?:input|value)s?\b",
    "negative": r"\bnegative\b",
    "float": r"\bfloat(?:ing)?(?:[- ]point)? (?:numbers?|values?|inputs?)\b|\bdecimal (?:numbers?|values?|inputs?)\b|"
             r"\bnon-integer",
    "large": r"\b(?:large|big|huge|very long|long) (?:numbers?|inputs?|lists?|strings?|values?|integers?|arrays?)\b",
    "duplicates": r"\bduplicat|\brepeated (?:elements?|values?|numbers?|items?)\b",
    "mixed_case": r"\bupper ?case|\blower ?case|\bcapital(?:ized|s)?\b|\bcase[- ](?:in)?sensitiv",
    "spaces": r"\bspaces\b|\bwhitespace|\ba space (?:character|separator)\b",
}  # fmt: skip
"""Words that name an input class as a case the code gets wrong."""

_COMPILED = {cause: [re.compile(p, re.IGNORECASE) for p in patterns] for cause, patterns in CAUSE_PATTERNS.items()}
_CLASSES = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in CLASS_PATTERNS.items()}
_INPUT_RE = re.compile(r"\binput(?: \w+)? (?:is|was|of) (\"[^\"]*\"|'[^']*'|\[[^\]]*\]|-?\d+(?:\.\d+)?)", re.IGNORECASE)
_OUTPUT_RE = re.compile(
    r"\b(?:actual output (?:is|was)|output (?:is|was)|returned|got|gave|returns(?=\s+\S+ (?:instead|for any|for the|"
    r"for this)))\s+`?(\"[^\"]*\"|'[^']*'|\[[^\]]*\]|-?\d+(?:\.\d+)?|True|False|None)`?",
    re.IGNORECASE,
)
_EXAMPLE_RE = re.compile(r"\b(?:here is|here's|for example|an example|example of)\b", re.IGNORECASE)
_HANG_RE = re.compile(r"infinite loop|never (?:terminates|ends|stops|finishes)|\btim(?:es|ed)? ?out\b", re.IGNORECASE)
_CODE_RE = re.compile(r"`([^`\n]+)`")
_CODELIKE_RE = re.compile(r"\b(?:return|if|for|while|lambda|def|import)\b|[=<>+*/%]|\w -\w")
"""Code that states something: a keyword or an operator (`map()` or `self` alone is only a name)."""
_FAILURE_RE = re.compile(
    r"\b(?:fail\w*|handl\w*|wrong|incorrect\w*|error|break\w*|crash\w*|bug|issue|problem|should|must|expected|"
    r"instead)\b",
    re.IGNORECASE,
)
"""A sentence that speaks of a failure: an input class it names is a case the code gets wrong."""
_PROPOSING_RE = re.compile(r"\b(?:should|need to|needs to|NEW PLAN|we can|to fix|to overcome)\b", re.IGNORECASE)
"""A sentence that proposes: an exception type named in it is a plan, not a cause ("would raise a ValueError" and
a message's "must have" still name one)."""
_AVOIDED_RE = re.compile(r"\b(?:avoid\w*|prevent\w*|without|no|not|never)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)
_CLAIMED_FAILURE_RE = re.compile(r"\bfail(?:ed|s)? (?:the |a |its |all )?(?:unit |internal )?tests?\b", re.IGNORECASE)
_ALWAYS_RE = re.compile(
    r"\b(?:sum|result|output|return value|function)\s+(?:is|will be|returns|would be) always\s+`?(-?\d+(?:\.\d+)?|True|"
    r"False|None|\[\])`?",
    re.IGNORECASE,
)
_LITERAL_RE = re.compile(r"\b(?:is|are|of|equals?|=)\s+(\[[^\]\n]*\]|'[^'\n]+'|\"[^\"\n]+\")")
"""An input a sentence gives a value ("where the date is '06/04/2020'"), not a word it quotes ("no attribute 'left'")."""
LITERAL_PREFIX = 12
"""A long quoted input counts as the failed test's when its first characters are: a copying slip is no other test."""
_ABOUT_ASSERTS_RE = re.compile(r"\bassert(?:ion)?s?\b(?! \w+\()|\btest suite\b|\bunittest\b", re.IGNORECASE)
_MESSAGES: dict[str, tuple[str, ...]] = {
    "NameError": ("is not defined",),
    "SyntaxError": ("was never closed", "invalid syntax", "unexpected indent", "expected ':'", "unterminated"),
    "IndentationError": ("unexpected indent", "expected an indented block", "unindent does not match"),
    "AttributeError": ("has no attribute",),
    "IndexError": ("index out of range",),
    "ValueError": ("math domain error", "invalid literal", "not enough values", "too many values", "could not convert",
                   "is not in list", "substring not found", "empty separator", "does not match format",
                   "unconverted data remains"),
    "TypeError": ("unsupported operand", "not subscriptable", "not callable", "not iterable", "positional argument",
                  "can only concatenate", "unhashable type", "not supported between instances", "has no len()",
                  "cannot be interpreted as an integer"),
    "ZeroDivisionError": ("division by zero", "division or modulo by zero"),
    "RecursionError": ("maximum recursion depth",),
}
"""Exception types whose message Reflexion's feedback prints without the type: a reflection naming the type names
what the feedback shows."""
_PARAPHRASES: dict[str, tuple[str, ...]] = {"IndexError": (r"\bout of (?:the )?bounds\b",)}
"""Words for a type that are no message Python prints, but name it as its message does."""
_MESSAGE_RES = {
    kind: re.compile("|".join([*map(re.escape, messages), *_PARAPHRASES.get(kind, ())]), re.IGNORECASE)
    for kind, messages in _MESSAGES.items()
}
"""A type named by its message ("list index out of range", "out of the bounds of the list"), as readers read it."""
_PROPOSAL_RE = re.compile(
    r"\b(?:to|with|like|as|such as|e\.g\.|add|use|using|replace|change|modify|should|could|can|instead)\W*$",
    re.IGNORECASE,
)
_BLOCK_RE = re.compile(r"```[a-z]*\n(.*?)(?:```|\Z)", re.DOTALL)
_SHOWN_AS_OURS_RE = re.compile(
    r"(?:breakdown of the code|the (?:original|current|given|existing) (?:code|implementation)|(?:the|your|my) code "
    r"(?:is|was|does)|the implementation (?:is|was|does))[^.\n]{0,40}:?\s*$",
    re.IGNORECASE,
)
_CODE_LINE_RE = re.compile(r"(?:return|if|elif|else|for|while|def|raise|import|from)\b|[\w.\[\]]+ ?[-+*/]?= ")
"""A line of a code block that is a statement (a docstring's line is none)."""
_STATEMENT_RE = re.compile(r"\b(?:while|if|for|elif)\s+[^.\n`]*?(?:<=|>=|==|!=|<|>|\+|-|\[)[^.\n`]*?:(?=\s|$)")
_FAILED_STEP_RE = re.compile(r"^FAILED STEP:.*$", re.MULTILINE)
_NEW_PLAN_RE = re.compile(r"^NEW PLAN:.*\Z", re.MULTILINE | re.DOTALL)
_FAILED_TEST_RE = re.compile(
    r"fail(?:ed|s)? (?:the |a )?test(?: case)?s? (?:where|when|with|for)((?:[^.]|\.(?=\S))*)", re.IGNORECASE
)
"""A failed test described (up to the sentence's end: a decimal point is none)."""


def _span(norm: NormalizedText, start: int, end: int) -> tuple[int, int, str]:
    at, to = norm.span(start, end)
    return at, to, norm.original[at:to]


def _claim(norm: NormalizedText, start: int, end: int, **fields: object) -> Claim:
    at, to, text = _span(norm, start, end)
    return Claim.model_validate({"text": text, "start": at, "end": to, **fields})


def named_cause(text: str) -> tuple[str, re.Match[str]] | None:
    """The category whose words come first in `text` (an exception's name among them, unless a sentence on
    assertions names it), with where; None if none. A template's NEW PLAN proposes; it names no cause."""
    text = _blank(_NEW_PLAN_RE, text)
    found: list[tuple[str, re.Match[str]]] = []
    for cause, patterns in _COMPILED.items():
        found += [(cause, m) for p in patterns if (m := p.search(text)) is not None]
    found += [
        ("exception", m)
        for kind, m in named_types(text)
        if kind not in (TIME_LIMIT, WRONG_RESULT) and not _ABOUT_ASSERTS_RE.search(sentence(text, m.start(), m.end()))
    ]
    return min(found, key=lambda item: item[1].start(), default=None)


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _quoted_inputs(text: str, entry_point: str) -> list[tuple[re.Match[str] | None, int, int, object]]:
    """(match, start, end, value) of every input the text quotes: a literal after "the input ... is", or the
    arguments of a call of the function."""
    found: list[tuple[re.Match[str] | None, int, int, object]] = [
        (m, m.start(1), m.end(1), value) for m in _INPUT_RE.finditer(text) if (value := _literal(m.group(1))) is not None
    ]
    for m in re.finditer(rf"\b{re.escape(entry_point)}\(", text):
        depth, end = 0, m.end() - 1
        for end in range(m.end() - 1, min(len(text), m.end() + 500)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        call = text[m.start() : end + 1]
        try:
            node = ast.parse(call, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(node, ast.Call):
            values = [_literal(ast.unparse(arg)) for arg in node.args]
            found.append((None, m.start(), end + 1, tuple(values)))
    return found


def _test_classes(tests: Sequence[TestOutcome]) -> dict[int, set[str]]:
    return {test.number: set(input_classes(test.source)) for test in tests}


def _blank(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(lambda m: " " * len(m.group()), text)


def _prose(text: str) -> str:
    """The text with its code blocks blanked out (same length): a block proposes code, it names no failing input."""
    return _blank(_BLOCK_RE, text)


def _own_words(text: str) -> str:
    """The prose without a template's FAILED STEP line, which quotes the feedback rather than diagnosing it."""
    return _blank(_FAILED_STEP_RE, _prose(text))


def _pointing(code: FailedCode, norm: NormalizedText) -> list[Claim]:
    text, classes = _prose(norm.text), _test_classes(code.hidden)
    claims = []
    for name, pattern in _CLASSES.items():
        for m in pattern.finditer(text):
            if not _FAILURE_RE.search(sentence(text, m.start(), m.end())):
                continue
            steps = sorted(n for n, found in classes.items() if name in found)
            claims.append(_claim(norm, m.start(), m.end(), kind="input", means=name, steps=steps))
    for _, start, end, value in _quoted_inputs(text, code.problem.entry_point):
        named = classes_of(value) if not isinstance(value, tuple) else set().union(*map(classes_of, value))
        steps = sorted(n for n, found in classes.items() if found & named)
        claims.append(_claim(norm, start, end, kind="input", means=", ".join(sorted(named)) or "input", steps=steps))
    own = _own_words(norm.text)
    told = [(kind, m) for kind, pattern in _MESSAGE_RES.items() for m in pattern.finditer(own)]
    for kind, m in sorted(named_types(own) + told, key=lambda found: found[1].start()):
        if kind == WRONG_RESULT or _avoided(text, m) or _PROPOSING_RE.search(sentence(text, m.start(), m.end())):
            continue
        if kind == TIME_LIMIT:
            steps = [o.number for o in code.hidden if o.outcome in ("timeout", "stopped")]
        else:
            steps = [o.number for o in code.hidden if o.outcome == "error" and o.error_type == kind]
        claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means=kind, steps=steps))
    return claims


def _avoided(text: str, m: re.Match[str]) -> bool:
    """Whether the words just before `m` deny or avoid it ("thus avoiding the IndexError", "not a syntax error")."""
    return _AVOIDED_RE.search(text, max(0, m.start() - 30), m.start()) is not None


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def _confabulations(code: FailedCode, norm: NormalizedText) -> list[Claim]:
    text = _own_words(norm.text)
    internal = failed_internal_tests(code.feedback)
    outputs = {_collapsed(output) for _, output in internal}
    shown = code.feedback + "\n" + code.implementation
    shown += "".join(f" {kind}" for kind, messages in _MESSAGES.items() if any(m in code.feedback for m in messages))
    claims = []
    for m in _OUTPUT_RE.finditer(text):
        if _collapsed(m.group(1)).strip("'\"") not in {o.strip("'\"") for o in outputs}:
            claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means="an output the feedback never "
                                 "printed", confabulated=True))  # fmt: skip
    for kind, m in named_types(text):
        # Only a type written as one ("ZeroDivisionError"): "a runtime error" is a phrase, not RuntimeError; and not
        # one a sentence on assertions or a test suite of its own describes.
        about_asserts = _ABOUT_ASSERTS_RE.search(sentence(text, m.start(), m.end())) is not None
        if kind not in (TIME_LIMIT, WRONG_RESULT) and m.group() == kind and kind not in shown and not about_asserts \
                and not _avoided(text, m):
            claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means=f"{kind}, which the run never "
                                 "showed", confabulated=True))  # fmt: skip
    if "TIMEOUT" not in code.feedback:
        for m in _HANG_RE.finditer(text):
            if _EXAMPLE_RE.search(sentence(text, m.start(), m.end())):
                continue  # a hang in code the reflection offers as an example, not one it says the attempt had
            claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means="a hang the run never had",
                                 confabulated=True))  # fmt: skip
    implementation = _collapsed(code.implementation)
    for m in _CODE_RE.finditer(text):
        snippet = _collapsed(m.group(1))
        codelike = len(snippet) >= 4 and _CODELIKE_RE.search(snippet) is not None
        proposed = _PROPOSAL_RE.search(text, max(0, m.start() - 40), m.start()) is not None
        proposed = proposed or _PROPOSING_RE.search(sentence(text, m.start(), m.end())) is not None
        held = snippet in implementation or snippet in _collapsed(code.feedback)
        if codelike and not proposed and not held and not code_statements.loop_value(m.group(1), code.implementation):
            claims.append(_claim(norm, m.start(1), m.end(1), kind="line", means="code the implementation does "
                                     "not hold", confabulated=True))  # fmt: skip
    for m in _BLOCK_RE.finditer(norm.text):
        lines = [_collapsed(line) for line in m.group(1).splitlines() if _CODE_LINE_RE.match(line.strip())]
        absent = [line for line in lines if line not in implementation]
        shown_as_ours = _SHOWN_AS_OURS_RE.search(norm.text, max(0, m.start() - 80), m.start()) is not None
        if shown_as_ours and lines and len(absent) * 2 >= len(lines):
            claims.append(_claim(norm, m.start(1), m.end(1), kind="line", means="code shown as the implementation's "
                                 "that it does not hold", confabulated=True))  # fmt: skip
    prose = _blank(_CODE_RE, text)
    for m in _STATEMENT_RE.finditer(prose):
        proposed = _PROPOSAL_RE.search(prose, max(0, m.start() - 40), m.start()) is not None
        if not proposed and _collapsed(m.group()).rstrip(":") not in implementation:
            claims.append(_claim(norm, m.start(), m.end(), kind="line", means="code the implementation does not "
                                 "hold", confabulated=True))  # fmt: skip
    failed_classes = set().union(*(set(input_classes(t, (code.problem.entry_point,))) for t, _ in internal))
    for m in _FAILED_TEST_RE.finditer(text):
        said = {name for name, pattern in _CLASSES.items() if pattern.search(m.group(1))}
        if said and not said & failed_classes:
            claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means="a failed test the feedback "
                                 "does not list", confabulated=True))  # fmt: skip
    claims += _failed_tests(code, norm, text, internal)
    for m in _ALWAYS_RE.finditer(text):
        if m.group(1) not in {o.strip("'\"") for o in outputs}:
            claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means="an output the feedback never "
                                 "printed", confabulated=True))  # fmt: skip
    statements = [
        *(("line", span) for span in code_statements.constructs(text, norm.text, code.implementation)),
        *(("line", span) for span in code_statements.names(text, norm.text, code.implementation)),
        *(("line", span) for span in code_statements.quoted_lines(norm.text, code.implementation)),
        *(("line", span) for span in code_statements.denied_operations(text, norm.text, code.implementation)),
        *(("test_output", span) for span in code_statements.narrated_tests(text, norm.text, code.feedback,
                                                                            failed_classes)),
    ]  # fmt: skip
    taken = {(claim.start, claim.end) for claim in claims}
    for kind, (start, end, means) in statements:
        claim = _claim(norm, start, end, kind=kind, means=means, confabulated=True)
        if (claim.start, claim.end) not in taken:
            claims.append(claim)
    return claims


def _failed_tests(code: FailedCode, norm: NormalizedText, text: str, internal: list[tuple[str, str]]) -> list[Claim]:
    """Tests said to have failed that the feedback does not list as failed: any, where it lists none; one described
    by an input the failed tests lack (a literal of a passed test, or of no test)."""
    claims = []
    shown = _collapsed(" ".join(test for test, _ in internal))
    if not internal:
        for m in _CLAIMED_FAILURE_RE.finditer(text):
            claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means="a failed test where the feedback "
                                 "lists none", confabulated=True))  # fmt: skip
        return claims
    for m in _FAILED_TEST_RE.finditer(text):
        literals = [_collapsed(found).strip("'\"") for found in _LITERAL_RE.findall(m.group(1))]
        if literals and not any(literal in shown or literal[:LITERAL_PREFIX] in shown for literal in literals):
            claims.append(_claim(norm, m.start(), m.end(), kind="test_output", means="a failed test whose input the "
                                 "failed tests do not have", confabulated=True))  # fmt: skip
    return claims


def reflection_claims(code: FailedCode, reflection: str) -> ReflectionClaims:
    """What one reflection claims about its trial."""
    norm = normalize_text(reflection)
    claims = _pointing(code, norm)
    cause = named_cause(_own_words(norm.text))
    if cause is not None:
        claims.append(_claim(norm, cause[1].start(), cause[1].end(), kind="cause", means=cause[0]))
    claims += _confabulations(code, norm)
    claims.sort(key=lambda claim: (claim.start, claim.end))
    steps = sorted({step for claim in claims if not claim.confabulated for step in claim.steps})
    return ReflectionClaims(rule=RULE, claimed_steps=steps, cause=cause[0] if cause else None, claims=claims)

