"""What a HotpotQA reflection claims about its failed trial: the supporting facts it points at, the cause it names,
and what it states that the trial never held. Deterministic, on the normalised text
(`harness.domains.normalized_text`); every claim's span points into the text as written.

- Points at a supporting fact: writes, as whole words, a name or a number of that fact's sentence, its article's
  title, or two lower-case content words in a row of the sentence ("critical quotations"), that the question does
  not hold, and not inside a longer name of its own ("GmbH" in "VIVA Media GmbH" names the company) (`Claim.kind`
  "fact", `steps` the facts it points at).
- Cause: the category whose words come first (`CAUSE_PATTERNS`, in the order of the text); None when none does.
  Generic advice ("read the question carefully" as a plan) names none.
- Confabulated: a name (not after "a" or "an") with a word that appears nowhere in the question, the context, the
  thought, the action or the answer (a word found at a difflib ratio >= FUZZY_RATIO counts as there) and that the
  paragraphs never write in lower case; a number that appears nowhere there (not a part of a date or range); or a
  question or answer the reflection quotes as asked or given (`the question "..."`, `answered "..."`) whose words
  are not there either (`Claim.kind` "fact", `confabulated`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from harness.domains.hotpotqa.diagnosis_trial import (
    STOPWORDS,
    FailedQuestion,
    SupportingFact,
    from_line,
    from_record,
    keys,
)
from harness.domains.hotpotqa.diagnosis_truth import (
    FUZZY_RATIO,
    question_truth,
    unscored,
)
from harness.domains.hotpotqa.names import (
    CONNECTORS,
    Word,
    find_names,
    is_common,
    numbers,
    words,
)
from harness.domains.normalized_text import NormalizedText, normalize_text
from harness.records import TrialRecord
from harness.records.hotpotqa import QuestionAttempt
from harness.records.diagnosis import Claim, GroundTruth, ReflectionClaims

RULE = "hotpotqa-claims/2"

CAUSE_PATTERNS: dict[str, tuple[str, ...]] = {
    "em_format": (
        r"phrasing(?! of the question)", r"\bdiscrepanc", r"\bconcise", r"\bverbos", r"\bsuccinct", r"\bspecificity",
        r"too (?:long|short|specific|detailed|general|much (?:information|detail))", r"specific enough",
        r"more (?:specific|general|detailed)", r"enough detail", r"full (?:name|title|route)", r"complete name",
        r"\bnickname", r"exact[- ]match", r"answer key", r"grading (?:environment|system)", r"\bformat\b",
        r"shorter", r"short answer", r"multiple answers", r"combined answer", r"(?:included|provided|listed) both",
        r"did not include the (?:name|state|word|year)", r"right by the context", r"type\[argument\]",
        r"\bparser?\b[^.]*\b(?:type|parse)",
    ),
    "stopped_at_bridge": (
        r"\bstopped\b", r"instead of answering", r"answered with the [\w' ]{0,20}name\b", r"intermediate entity",
    ),
    "unsupported_answer": (
        r"not (?:appear|occur)\w* (?:anywhere )?in the context", r"(?:did|does) not match the context",
        r"not related to the context", r"not (?:found|present) in the context", r"\bguessed\b", r"made (?:it )?up",
        r"outside knowledge", r"hallucinat", r"without (?:any )?(?:supporting )?evidence", r"unfounded assumption",
    ),
    "hop1_miss": (
        r"wrong (?:person|individual|entity|film|book|company|band|character|player|team|work)", r"misidentif",
        r"identified the wrong", r"should have (?:asked|looked|searched) (?:for|at) the", r"not the protagonist",
    ),
    "hop2_misread": (r"\bmisread", r"wrong (?:fact|attribute|detail)s? (?:about|of)", r"took the wrong"),
    "comparison_misread": (
        r"\b(?:re)?count(?:ed|ing|s)?\b", r"correct number of", r"\bcompar(?:ed|ing|ison)\b",
        r"missed the fact that",
    ),
    "other": (
        r"(?:misunderstood|misinterpreted) the question", r"not (?:have )?(?:fully )?understood the question",
        r"not (?:have )?read the question", r"lack of (?:necessary )?information",
        r"context (?:does|did) not (?:provide|include|mention|contain)", r"no (?:specific )?information about",
        r"not available in the (?:given|provided) context", r"chronological order", r"phrasing of the question",
    ),
}  # fmt: skip
"""Each cause's words; the category whose first match comes first in the reflection is the one it names."""

_CLAIMED_QUOTE_RE = re.compile(
    r"\b(?:question|answered|answer|asked)\s*(?:was|is|with)?\s*[:,]?\s*[\"\u201c]([^\"\u201d]{3,200})[\"\u201d]", re.IGNORECASE
)
_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty").split()
"""A number the context writes in words ("six") is there as a number too."""
_INDEFINITE_RE = re.compile(r"\b(?:an?)\s+$", re.IGNORECASE)
_COMPILED = {cause: [re.compile(p, re.IGNORECASE) for p in patterns] for cause, patterns in CAUSE_PATTERNS.items()}


@dataclass(frozen=True, slots=True)
class _Pointer:
    """A name or number of a supporting fact (or its article's title) that the question does not hold."""

    keys: tuple[str, ...]
    text: str
    fact: int


def _content_keys(found: list[Word]) -> list[Word]:
    return [word for word in found if word.text.lower() not in CONNECTORS]


def _plain(word: Word) -> bool:
    """A lower-case content word: two in a row are a phrase of the sentence ("critical quotations")."""
    return word.text.islower() and word.key not in STOPWORDS and word.text.lower() not in CONNECTORS


def _pointers(trial: FailedQuestion) -> tuple[_Pointer, ...]:
    return _question_pointers(trial.question, trial.facts)


@lru_cache(maxsize=256)
def _question_pointers(asked: str, facts: tuple[SupportingFact, ...]) -> tuple[_Pointer, ...]:
    question = keys(asked)
    pointers = []
    for fact in facts:
        found = words(fact.sentence)
        names = [tuple(w.key for w in name.words) for name in find_names(fact.sentence, found)]
        names += [(w.key,) for w in numbers(found)]
        names.append(tuple(w.key for w in _content_keys(words(fact.article))))
        names += [(a.key, b.key) for a, b in pairwise(found) if _plain(a) and _plain(b)]
        for name in dict.fromkeys(names):
            if name and not set(name) <= question:
                pointers.append(_Pointer(keys=name, text=" ".join(name), fact=fact.number))
    return tuple(pointers)


def _sequence_spans(found: list[Word], at: dict[str, list[int]], wanted: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where the reflection's words (connectors left out; `at`: each key's places) hold `wanted` in order."""
    size = len(wanted)
    return [
        (found[i].start, found[i + size - 1].end)
        for i in at.get(wanted[0], ())
        if tuple(w.key for w in found[i : i + size]) == wanted
    ]


def _span(norm: NormalizedText, start: int, end: int) -> tuple[int, int, str]:
    at, to = norm.span(start, end)
    return at, to, norm.original[at:to]


def _fact_claims(trial: FailedQuestion, norm: NormalizedText, found: list[Word]) -> list[Claim]:
    # A pointer inside a longer name of the reflection names that longer thing ("GmbH" in "VIVA Media GmbH").
    names = [(name.start, name.end) for name in find_names(norm.text)]
    places: dict[str, list[int]] = {}
    for index, word in enumerate(found):
        places.setdefault(word.key, []).append(index)
    by_place: dict[tuple[int, int], set[int]] = {}
    for pointer in _pointers(trial):
        for start, end in _sequence_spans(found, places, pointer.keys):
            if any(s <= start and end <= e and (s, e) != (start, end) for s, e in names):
                continue
            by_place.setdefault((start, end), set()).add(pointer.fact)
    claims = []
    for (start, end), facts in sorted(by_place.items()):
        at, to, text = _span(norm, start, end)
        means = "supporting fact " + ", ".join(str(n) for n in sorted(facts))
        claims.append(Claim(kind="fact", text=text, start=at, end=to, means=means, steps=sorted(facts)))
    return claims


def named_cause(text: str) -> tuple[str, re.Match[str]] | None:
    """The category whose words come first in `text`, with where; None when none does."""
    first: tuple[str, re.Match[str]] | None = None
    for cause, patterns in _COMPILED.items():
        for pattern in patterns:
            match = pattern.search(text)
            if match and (first is None or match.start() < first[1].start()):
                first = (cause, match)
    return first


def _grounded(trial: FailedQuestion) -> frozenset[str]:
    texts = [trial.question, trial.context, trial.thought, trial.action or "", trial.answer or ""]
    found = frozenset().union(*(keys(text) for text in texts))
    return found | {str(n) for n, word in enumerate(_NUMBER_WORDS) if word in found}


def _known(word: str, grounded: frozenset[str]) -> bool:
    return word in grounded or any(
        difflib.SequenceMatcher(None, word, other).ratio() >= FUZZY_RATIO for other in grounded
    )


def _date_part(text: str, word: Word) -> bool:
    """A number written as part of a date or a range (1972-03-02, 1947–91): its parts are read whole elsewhere."""
    before, after = text[max(0, word.start - 1) : word.start], text[word.end : word.end + 1]
    return any(mark and mark in "-/\u2013" for mark in (before, after))


def _confabulations(trial: FailedQuestion, norm: NormalizedText, found: list[Word]) -> list[Claim]:
    grounded = _grounded(trial)
    claims = []
    for name in find_names(norm.text, found):
        # A word a paragraph writes in lower case joined to a name by a stray initial ("ISS A/S. Moving") is no name;
        # a name after "a" or "an" names no particular thing ("an AI assistant").
        if _INDEFINITE_RE.search(norm.text, 0, name.start):
            continue
        if any(not _known(word.key, grounded) and not is_common(word.key) for word in name.words):
            at, to, text = _span(norm, name.start, name.end)
            claims.append(Claim(kind="fact", text=text, start=at, end=to, means="a name the trial does not hold",
                                confabulated=True))  # fmt: skip
    for number in (word for word in found if word.text.isdigit()):
        if number.key not in grounded and not _date_part(norm.text, number):
            at, to, text = _span(norm, number.start, number.end)
            claims.append(Claim(kind="fact", text=text, start=at, end=to, means="a number the trial does not hold",
                                confabulated=True))  # fmt: skip
    for match in _CLAIMED_QUOTE_RE.finditer(norm.text):
        quoted = {w.key for w in words(match.group(1))}
        if quoted and not all(_known(key, grounded) for key in quoted):
            at, to, text = _span(norm, match.start(1), match.end(1))
            claims.append(Claim(kind="fact", text=text, start=at, end=to, means="a quoted question or answer the "
                                "trial never had", confabulated=True))  # fmt: skip
    return claims


def reflection_claims(trial: FailedQuestion, reflection: str) -> ReflectionClaims:
    """What one reflection claims about its trial."""
    norm = normalize_text(reflection)
    found = _content_keys(words(norm.text))
    claims = _fact_claims(trial, norm, found)
    cause = named_cause(norm.text)
    if cause is not None:
        at, to, text = _span(norm, cause[1].start(), cause[1].end())
        claims.append(Claim(kind="cause", text=text, start=at, end=to, means=cause[0]))
    confabulated = list({(c.start, c.end): c for c in _confabulations(trial, norm, words(norm.text))}.values())
    seen = {(c.start, c.end) for c in confabulated}
    claims = [c for c in claims if (c.start, c.end) not in seen] + confabulated
    claims.sort(key=lambda c: (c.start, c.end))
    steps = sorted({step for claim in claims if claim.kind == "fact" for step in claim.steps})
    return ReflectionClaims(rule=RULE, claimed_steps=steps, cause=cause[0] if cause else None, claims=claims)


def record_claims(record: TrialRecord, truth: GroundTruth) -> ReflectionClaims:
    """The spec's `claims`: a record with a reflection (its truth is not read: claims never see the answer key)."""
    return reflection_claims(from_record(record), record.reflection or "")


def line_diagnosis(line: dict[str, object]) -> tuple[GroundTruth, ReflectionClaims]:
    """The spec's `line_diagnosis`: one line of `reflexion-diagnosis` -> the trial's truth and the reflection's claims."""
    trial, reflection = from_line(line)
    truth = question_truth(trial) if trial.facts else unscored(trial.task_id, "the line has no supporting facts.")
    return truth, reflection_claims(trial, reflection)


SIGNALS_RULE = "hotpotqa-signals/1"
_SIGNAL_CAUSES = (
    ("does not parse", "em_format"),
    ("is not Finish", "em_format"),
    ("ended before an action", "em_format"),
    ("does not occur in the context", "unsupported_answer"),
)
"""A parser signal read as a cause: no answer given is a matter of form, an answer nowhere in the context unsupported;
an answer repeated from an earlier trial names no cause."""


def signal_claims(record: TrialRecord) -> ReflectionClaims:
    """The heuristic row "the parser's own signals read as a diagnosis": what `programmatic` is shown
    (`harness.domains.hotpotqa.signals.failure_signals`), read as a reflection that names the first signal's cause and
    points at no supporting fact (the parser reads no answer key, so it knows no hop)."""
    from harness.domains.hotpotqa.signals import failure_signals

    trial = from_record(record)
    attempt = record.attempt_details
    if not isinstance(attempt, QuestionAttempt):
        raise ValueError(f"{record.task_id}: the record keeps no HotpotQA attempt")
    lines = failure_signals(attempt, trial.context)
    cause = next((c for line in lines for said, c in _SIGNAL_CAUSES if said in line), None)
    return ReflectionClaims(rule=SIGNALS_RULE, cause=cause)
