"""Which HumanEval problem a code reflection is about: this problem's function and job, or another problem's.

The text is normalised first (`harness.domains.normalized_text`: a zero-width space or a soft hyphen inside a name, or
fullwidth letters, hide nothing). This problem is named (`vocabulary`) by its function or a helper its prompt
defines (written as code: `name`, name(...), a snake_case or camelCase name, "the name function"), a parameter, an
example's value, the words of its docstring weighed by how few problems share them, and, when the run's feedback is
known (`failures`), a failed test's call or values or an error type the run had. Another problem is named by its
function, or by words and phrases of its docstring that this one lacks, weighing enough; another problem's function
made of this problem's own words (`is_prime` where the docstring asks for primes) is a helper for this job. Words of
a sentence about syntax, indentation, delimiters, braces or compiling are the language's, and name no job; an error
type alone, with no feedback or one it does not match, names nothing; a clitic ("it's") names no parameter.

- on_task: names this problem, and no other problem outweighs it three times over (a contrast with another function
  stays on task);
- off_task: another problem outweighs this one three times over: this one is not named, or only in passing;
- vacuous: names neither: generic advice, language or tooling only, an error type alone, empty or cut off.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from harness.domains.humaneval.failures import failure_of_line, failure_types, named_types
from harness.domains.humaneval.mention import case_spans, mentions_case, value_pattern
from harness.domains.humaneval.vocabulary import (
    GENERIC,
    ProblemVocabulary,
    function_owners,
    identifier_words,
    name_key,
    pair_owners,
    term_owners,
    term_sequence,
    term_weights,
    vocabularies,
)
from harness.domains.normalized_text import normalize_text
from harness.records import TrialRecord
from harness.records.humaneval import CheckedCall, FailedAssert
from harness.records.identity import IdentityEvidence, ReflectionIdentity

RULE = "humaneval/3"
IDENTITY_NOTE = (
    "HumanEval task identity: on_task names this problem (its function or a helper, a parameter, its docstring's "
    "distinctive words or examples, or a failed test or error type of the known feedback) and no other problem's job "
    "more; off_task names another problem's function or job; vacuous names neither (an error type alone names nothing)."
)
OWN_FLOOR = 3.0
"""Weight of docstring words that names this problem: one word no more than about 8 of the 164 problems use."""
OTHER_FLOOR = 8.5
"""Weight of another problem's words (two at least) that names it: above what a reflection's generic words add up to
for the likeliest of 163 other problems (up to 7.9 on the development split)."""
NAME_WEIGHT = 2 * OWN_FLOOR
"""What naming a function, a parameter, an example or a failure weighs beside the words: as much as two words few
problems share, since a name says which problem it is on its own."""
RIVAL_RATIO = 3.0
"""Another problem decides the label when it outweighs this one this many times. Chosen beside OTHER_FLOOR on the
development split and on the published reflections read against their own problem (off_task there is a false
alarm: 2.8% of 2,220 at 3.0, 4.3% at 2.0)."""
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A sentence about the language: syntax, indentation, delimiters and braces, compiling, a mismatch.
_TOOLING_RE = re.compile(
    r"\b(?:syntax|syntaxerror|indent\w*|eof|unclosed|unterminated|compil\w*|borrow\w*|delimiters?|braces?|"
    r"mismatch\w*)\b",
    re.IGNORECASE,
)
# "it's", "doesn't": a clitic after a letter and an apostrophe is no parameter s or t.
_CLITIC_RE = re.compile(r"(?<=[A-Za-z]['\u2019])(?:s|t|d|m|ll|re|ve)\b")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_QUOTED_RE = re.compile(r"\"([^\"\n]{3,})\"|'([^'\n]{3,})'|`([^`\n]{3,})`")
_LIST_RE = re.compile(r"\[[^\[\]\n]*,[^\[\]\n]*\]")
_EXPECTED_RE = r"\bexpected\b[^.;\n]{0,30}?"
_RETURNED_RE = r"\b(?:actual|returned|returns|returning|output|outputs|outputted|gave|gives|got)\b[^.;\n]{0,30}?"
_CODE_BEFORE = ("`", "function ", "method ")
_CODE_AFTER = ("(", "`", " function", " method", "()")


Make = Callable[[str, int, int, str], IdentityEvidence]
"""(kind, start, end, means) in the normalised text -> evidence in the text as written."""


@dataclass
class _Reading:
    """What a reflection names: this problem by name (function, parameter, example, failure) or by its docstring's
    words and their weight; each other problem by name, or by words with their weight; what was read and set aside."""

    named: list[IdentityEvidence] = field(default_factory=list)
    words: list[IdentityEvidence] = field(default_factory=list)
    weight: float = 0.0
    other: dict[str, list[IdentityEvidence]] = field(default_factory=lambda: defaultdict(list))
    other_weight: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    other_words: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    other_named: set[str] = field(default_factory=set)
    aside: list[IdentityEvidence] = field(default_factory=list)


def _as_code(text: str, start: int, end: int, identifier: str) -> bool:
    """A name written as code: snake_case, camelCase or with a digit, in backticks, called, or "the X function"."""
    if "_" in identifier.strip("_") or any(c.isdigit() for c in identifier) or identifier[1:] != identifier[1:].lower():
        return True
    return text[max(0, start - 9) : start].endswith(_CODE_BEFORE) or text.startswith(_CODE_AFTER, end)


def _parameter_named(parameter: str, code: bool) -> bool:
    """A parameter is named as code, or as a word no English sentence uses otherwise: not a generic word ("string",
    "numbers"), not the one-letter words "a" and "I" ("the last k elements" names k)."""
    if code:
        return True
    return parameter not in GENERIC and parameter.lower() not in ("a", "i")


def _helper_of_this_job(identifier: str, vocabulary: ProblemVocabulary) -> bool:
    """Another problem's function name made of this problem's own words is a helper for this job: `is_prime` where
    the docstring asks for prime lengths (words_in_sentence, x_or_y, intersection), not HumanEval/31."""
    words = term_sequence(identifier_words(identifier))
    return bool(words) and all(word in vocabulary.terms for word in words)


def _functions_and_parameters(text: str, vocabulary: ProblemVocabulary, found: _Reading, make: Make) -> set[int]:
    """Function names and parameters, as named evidence; where the function names start (their words are the name,
    not a description of a job)."""
    own_names = {name_key(name) for name in vocabulary.functions}
    owners = function_owners()
    names = set()
    for match in _IDENTIFIER_RE.finditer(text):
        identifier, start, end = match.group(), match.start(), match.end()
        if _CLITIC_RE.match(text, start):
            continue
        key, code = name_key(identifier), _as_code(text, start, end, identifier)
        if key in owners and code:
            names.add(start)
        if key in own_names and code:
            found.named.append(make("problem_term", start, end, f"{identifier}: this problem's function"))
        elif key in owners and code and _helper_of_this_job(identifier, vocabulary):
            found.named.append(make("problem_term", start, end, f"{identifier}: a helper for this problem's job"))
        elif key in owners and code:
            for task in owners[key]:
                found.other[task].append(make("other_problem", start, end, f"{identifier}: {task}'s function"))
                found.other_named.add(task)
        elif identifier in vocabulary.parameters and _parameter_named(identifier, code):
            found.named.append(make("problem_term", start, end, f"{identifier}: a parameter of {vocabulary.entry_point}"))
    return names


def _sentences(text: str) -> list[tuple[int, int]]:
    bounds, start = [], 0
    for boundary in _SENTENCE_END_RE.finditer(text):
        bounds.append((start, boundary.start()))
        start = boundary.end()
    return [*bounds, (start, len(text))]


def _terms(text: str, vocabulary: ProblemVocabulary, found: _Reading, make: Make, names: set[int]) -> None:
    """Docstring words and neighbouring pairs of them, the first place each is written, outside sentences about the
    language and outside the function names already read."""
    first: dict[str, tuple[int, int]] = {}
    pairs: dict[tuple[str, str], tuple[int, int]] = {}
    for start, end in _sentences(text):
        if _TOOLING_RE.search(text, start, end):
            continue
        sequence = [
            (key, match.start(), match.end())
            for match in _IDENTIFIER_RE.finditer(text, start, end)
            if match.start() not in names
            for key in term_sequence(identifier_words(match.group()))
        ]
        for key, s, e in sequence:
            first.setdefault(key, (s, e))
        for (a, s, _), (b, _, e) in zip(sequence, sequence[1:]):
            if a != b:
                pairs.setdefault((a, b), (s, e))
    weights, owners = term_weights(), term_owners()
    for key, (s, e) in first.items():
        if key in vocabulary.terms:
            found.weight += weights[key]
            found.words.append(make("problem_term", s, e, f"{key}: a word of {vocabulary.entry_point}'s docstring"))
            continue
        for task in owners.get(key, ()):
            found.other_weight[task] += weights[key]
            found.other_words[task] += 1
            found.other[task].append(make("other_problem", s, e, f"{key}: a word of {task}'s docstring"))
    # A pair weighs again what its words weigh: a phrase of the job says more than its words apart.
    for pair, (s, e) in pairs.items():
        weight, phrase = weights.get(pair[0], 0.0) + weights.get(pair[1], 0.0), " ".join(pair)
        if pair in vocabulary.pairs:
            found.weight += weight
            found.words.append(make("problem_term", s, e, f"{phrase}: a phrase of {vocabulary.entry_point}'s docstring"))
            continue
        for task in pair_owners().get(pair, ()):
            found.other_weight[task] += weight
            found.other[task].append(make("other_problem", s, e, f"{phrase}: a phrase of {task}'s docstring"))


def _examples(text: str, vocabulary: ProblemVocabulary, found: _Reading, make: Make) -> None:
    for match in _QUOTED_RE.finditer(text):
        value = next(group for group in match.groups() if group is not None)
        if value in vocabulary.examples:
            found.named.append(make("problem_term", match.start(), match.end(), f"{value}: a docstring example"))
    for match in _LIST_RE.finditer(text):
        if "".join(match.group().split()) in vocabulary.examples:
            found.named.append(make("problem_term", match.start(), match.end(), "a docstring example's value"))


def _case_evidence(text: str, case: CheckedCall, make: Make) -> IdentityEvidence | None:
    """Where the reflection names one failed test: its call or all its inputs, or its expected or returned value."""
    if mentions_case(text, case, "normalized"):
        span = case_spans(text, case)[0]
        return make("failed_test", span.start, span.end, case.source)
    if isinstance(case, FailedAssert):
        for lead, value in ((_EXPECTED_RE, case.expected), (_RETURNED_RE, case.actual)):
            match = re.search(lead + value_pattern(value).pattern, text) if value else None
            if match:
                return make("failed_test", match.start(), match.end(), case.source)
    return None


def _failure(text: str, failed: Sequence[CheckedCall], types: set[str], found: _Reading, make: Make) -> None:
    found.named += [e for case in failed if (e := _case_evidence(text, case, make)) is not None]
    for kind, match in named_types(text):
        if kind in types:
            found.named.append(make("error_type", match.start(), match.end(), f"{kind}: the run had it"))
        else:
            had = ", ".join(sorted(types)) or "not known"
            found.aside.append(make("error_type", match.start(), match.end(), f"{kind} (the feedback: {had})"))


def _label(found: _Reading) -> tuple[str, list[IdentityEvidence], list[IdentityEvidence]]:
    """The label, the evidence that decided it, and the rest. Each side scores its docstring words' weight, and
    NAME_WEIGHT for each thing it names (a function, a parameter, an example, a failure); another problem is named
    when its function is, or when its words weigh OTHER_FLOOR (two at least). It decides when it outweighs this
    problem twice over: a contrast with another function stays on task, this one named in passing does not."""
    own_score = found.weight + NAME_WEIGHT * len({e.text for e in found.named})
    named_own = bool(found.named) or found.weight >= OWN_FLOOR
    scores = {
        task: found.other_weight[task] + (NAME_WEIGHT if task in found.other_named else 0.0)
        for task in found.other
        if task in found.other_named or (found.other_weight[task] >= OTHER_FLOOR and found.other_words[task] >= 2)
    }
    rivals = {task for task, score in scores.items() if score > RIVAL_RATIO * own_score}
    own = found.named + found.words
    other_evidence = [e for task in sorted(rivals) for e in found.other[task]]
    rest = [e for task in found.other if task not in rivals for e in found.other[task]] + found.aside
    if rivals:
        return "off_task", other_evidence, own + rest
    if named_own:
        return "on_task", own, rest
    return "vacuous", [], own + rest


def reflection_identity(
    text: str, task_id: str, failed: Sequence[CheckedCall] = (), types: set[str] | None = None
) -> ReflectionIdentity:
    """The label of one code reflection on the HumanEval problem `task_id`, with its run's failed tests and error
    types when known."""
    vocabulary = vocabularies().get(task_id)
    if vocabulary is None:
        raise ValueError(f"task {task_id!r} is not a HumanEval problem id; accepted: 'HumanEval/<number>'.")
    original = normalize_text(text)
    read = original.text

    def make(kind: str, start: int, end: int, means: str) -> IdentityEvidence:
        s, e = original.span(start, end)
        return IdentityEvidence(kind=kind, text=original.original[s:e], start=s, end=e, means=means, counts=True)

    found = _Reading()
    names = _functions_and_parameters(read, vocabulary, found, make)
    _terms(read, vocabulary, found, make, names)
    _examples(read, vocabulary, found, make)
    _failure(read, failed, types or set(), found, make)
    label, deciding, rest = _label(found)
    evidence = deciding + [e.model_copy(update={"counts": False}) for e in rest]
    return ReflectionIdentity(label=label, rule=RULE, evidence=sorted(evidence, key=lambda e: (e.start, e.end)))


def record_identity(record: TrialRecord) -> ReflectionIdentity | None:
    """The identity of a record's reflection against its problem and the run it reflects on; None when it wrote none."""
    if record.reflection is None:
        return None
    details = record.attempt_details
    if details is None or details.kind != "humaneval":
        return reflection_identity(record.reflection, record.task_id)
    signals = details.signals
    return reflection_identity(record.reflection, record.task_id, signals.failed_cases, failure_types(signals))


def line_identity(item: dict[str, object]) -> ReflectionIdentity:
    """`reflexion-identity`'s line {"task": "HumanEval/<n>", "text", "failed_test" (optional: the
    run's feedback, Reflexion's or the harness's)}."""
    task, failed_test = item.get("task"), item.get("failed_test")
    if failed_test is not None and not isinstance(failed_test, str):
        raise ValueError("'failed_test' is the run's feedback as a string, or absent when not known.")
    vocabulary = vocabularies().get(str(task))
    if vocabulary is None:
        raise ValueError(f"task {task!r} is not a HumanEval problem id; accepted: 'HumanEval/<number>'.")
    cases, types = failure_of_line(failed_test, vocabulary.entry_point) if failed_test else ([], set())
    return reflection_identity(str(item["text"]), str(task), cases, types)
