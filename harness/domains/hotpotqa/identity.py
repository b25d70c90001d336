"""Which question a HotpotQA reflection is about, read as a reader reads it: the names it uses, this question's or not.

The text is normalised first (`harness.domains.normalized_text`). Its names (`names`: capitalised runs, numbers) are
compared with this question's own vocabulary (`vocabulary`: the question, its ten titles, the gold answer, the
attempt's answer when known), and its phrases with the questions' own (`terms`: three words of another question's
text, or of a few-shot example's, name that question whatever their case; two of this question's restate it; in a
reflection written without capitals, another question's uncommon word is its name). A name that shares a word with it is this question's, even as a wrong bridge or a wrong
answer; its titles and answers are found in lower case too. A name that shares none is foreign: another question's,
a few-shot example's (Colorado orogeny, Milhouse, ...), or nothing of this one. A foreign name in a sentence that also
names this question's is a step of the work on it (a candidate, a place searched on the way) and is set aside.

- on_task: names something of this question, and no foreign name stands on its own;
- off_task: a foreign name stands in a sentence of its own: the reflection plans or diagnoses another question; or it
  names nothing at all, not even a name of this question's paragraphs, and describes another in common words
  (`described`: "the type of dance that the chicken is a change of pace of");
- vacuous: names nothing: generic advice, parser talk, empty or cut off.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from functools import lru_cache

from harness.domains.hotpotqa.described import describes_another
from harness.domains.hotpotqa.names import Name, Sentences, Word, common_words, find_names, numbers, words
from harness.domains.hotpotqa.questions import questions_by_id
from harness.domains.hotpotqa.terms import FEWSHOT, gram_keys, grams, phrase_owners, word_owners
from harness.domains.hotpotqa.vocabulary import QuestionVocabulary, fewshot_words, frequent_words, question_vocabulary
from harness.domains.normalized_text import NormalizedText, normalize_text
from harness.records import TrialRecord
from harness.records.identity import IdentityEvidence, ReflectionIdentity

RULE = "hotpotqa/4"
IDENTITY_NOTE = (
    "HotpotQA task identity: on_task names something of this question (its question's phrase, titles, gold answer or "
    "the attempt's answer) and no name foreign to it on its own; off_task names another question's or a few-shot "
    "example's names or phrases (in any case) in a sentence of their own, or names nothing at all and "
    "describes another in its uncommon words; vacuous names nothing."
)
_Found = tuple[int, int, str]
"""(start, end, means) in the normalised text."""


def _phrase_matches(found: Sequence[Word], vocabulary: QuestionVocabulary) -> list[_Found]:
    """Every place the reflection writes one of the question's titles or answers, in any case, as whole words."""
    first: dict[str, list[tuple[str, ...]]] = {}
    means: dict[tuple[str, ...], str] = {}
    for phrase in vocabulary.phrases:
        first.setdefault(phrase.keys[0], []).append(phrase.keys)
        means.setdefault(phrase.keys, phrase.means)
    keys = [word.key for word in found]
    matches = []
    for k, key in enumerate(keys):
        for written in first.get(key, ()):
            if tuple(keys[k : k + len(written)]) == written:
                matches.append((found[k].start, found[k + len(written) - 1].end, means[written]))
    return matches


def _name_means(name: Name, vocabulary: QuestionVocabulary) -> str | None:
    """What of the question the name shares a word with; None for a foreign name."""
    shared = [vocabulary.words[key] for key in (w.key for w in name.words) if key in vocabulary.words]
    return shared[0] if shared else None


def _foreign(name: Name, inside: set[str], example: bool) -> bool:
    """Whether a name that shares nothing with the question names something else. A name made of frequent words
    names no question ("American"); one word opening a sentence ("Thoroughly", "Diagnosis") is taken for a name
    only where the reflection capitalises it inside a sentence too, or a few-shot example has it."""
    if all(w.key in frequent_words() or len(w.key) < 2 for w in name.words):
        return False
    if name.opening and len(name.words) == 1:
        return example or name.words[0].key in inside
    return True


PHRASE_GAP = 25
"""Characters at most between two words of a phrase once function words are left out ("original line of the")."""


def _phrases(text: str, found: Sequence[Word], n: int) -> list[tuple[tuple[str, ...], int, int]]:
    """Each run of `n` content words inside one sentence, without wide gaps: (keys, start, end)."""
    sentences = Sentences(text)
    runs = []
    for gram in grams(list(found), n):
        if len({sentences.of(w.start) for w in gram}) > 1:
            continue
        if any(b.start - a.end > PHRASE_GAP for a, b in pairwise(gram)):
            continue
        runs.append((tuple(w.key for w in gram), gram[0].start, gram[-1].end))
    return runs


def _terms(text: str, found: Sequence[Word], vocabulary: QuestionVocabulary) -> tuple[list[_Found], list[_Found]]:
    """This question's phrase restated (two neighbouring words of its text), and another question's phrase (three
    words) or, in a reflection written without capitals, another question's uncommon word ("antic magazine"), that
    this question's fields and paragraphs lack."""
    question = questions_by_id().get(vocabulary.question_id)
    if question is None:
        return [], []
    own_pairs = gram_keys(question.question, 2) & set(phrase_owners(2))
    own = [(s, e, f"{' '.join(keys)}: a phrase of the question") for keys, s, e in _phrases(text, found, 2)
           if keys in own_pairs]  # fmt: skip
    known = set(vocabulary.words) | vocabulary.articles
    foreign: list[_Found] = []
    for keys, s, e in _phrases(text, found, 3):
        who = phrase_owners(3).get(keys)
        if who and vocabulary.question_id not in who and not set(keys) <= known:
            foreign.append((s, e, "a few-shot example's phrase" if who == {FEWSHOT} else "another question's phrase"))
    if not any(c.isupper() for c in text):
        owners = word_owners()
        foreign += [
            (w.start, w.end, "another question's word")
            for w in found
            if w.key in owners and w.key not in known and vocabulary.question_id not in owners[w.key]
        ]
    return own, foreign


def _read(text: str, vocabulary: QuestionVocabulary) -> tuple[list[_Found], list[_Found], list[_Found]]:
    """This question's names, the foreign ones, and those written in its paragraphs only, in the normalised text."""
    found = words(text)
    own = _phrase_matches(found, vocabulary)
    own += [(w.start, w.end, vocabulary.words[w.key]) for w in numbers(found) if w.key in vocabulary.words]
    common, fewshot = common_words(), fewshot_words()
    # An uncommon word of the question written in lower case ("bhavageete") is a name too.
    own += [
        (w.start, w.end, vocabulary.words[w.key])
        for w in found
        if w.text.islower() and w.key in vocabulary.words and w.key not in common
    ]
    foreign: list[_Found] = []
    aside: list[_Found] = []
    names = find_names(text, found)
    inside = {w.key for name in names if not name.opening for w in name.words}
    for name in names:
        means = _name_means(name, vocabulary)
        distinctive = [w.key for w in name.words if w.key not in frequent_words() and len(w.key) > 1]
        example = bool(distinctive) and all(key in fewshot for key in distinctive)
        if means is not None:
            own.append((name.start, name.end, means))
        elif distinctive and all(key in vocabulary.articles for key in distinctive) and not example:
            # Written in this question's paragraphs: a step on its way, or a name famous enough to be everywhere.
            aside.append((name.start, name.end, "in this question's paragraphs only"))
        elif _foreign(name, inside, example):
            foreign.append((name.start, name.end, "a few-shot example's" if example else "not in this question"))
    foreign += [
        (w.start, w.end, "a few-shot example's")
        for w in found
        if w.text.islower() and w.key in fewshot and w.key not in vocabulary.words
    ]
    restated, others = _terms(text, found, vocabulary)
    taken = {f[0] for f in foreign}
    return own + restated, foreign + [f for f in others if f[0] not in taken], aside


def _evidence(original: NormalizedText, found: _Found, kind: str, counts: bool) -> IdentityEvidence:
    start, end = original.span(found[0], found[1])
    return IdentityEvidence(
        kind=kind, text=original.original[start:end], start=start, end=end, means=found[2], counts=counts
    )


def identity_of(text: str, vocabulary: QuestionVocabulary) -> ReflectionIdentity:
    """The label of one reflection against a question's vocabulary."""
    original = normalize_text(text)
    own, foreign, paragraphs = _read(original.text, vocabulary)
    sentences = Sentences(original.text)
    anchored = {sentences.of(start) for start, _, _ in own}
    alone = [f for f in foreign if sentences.of(f[0]) not in anchored]
    # A reflection about this question may name others on the way (candidates, places searched); it is about another
    # when the sentences naming only others outnumber those naming this question's.
    if alone and len({sentences.of(f[0]) for f in alone}) > len(anchored):
        label, deciding, rest = "off_task", [(f, "other_name") for f in alone], [(f, "name") for f in own]
    elif own:
        label, deciding, rest = "on_task", [(f, "name") for f in own], []
        alone = []
    elif not paragraphs and (described := [(s, e, f"another question's word (weight {w:.1f})") for s, e, _, w in
                                           describes_another(original.text, vocabulary)]):  # fmt: skip
        label, deciding, rest = "off_task", [(f, "other_name") for f in described], []
    else:
        label, deciding, rest = "vacuous", [], []
    standing = set(alone)
    aside = [(f, "other_name") for f in foreign if f not in standing] + [(f, "other_name") for f in paragraphs]
    evidence = [_evidence(original, f, kind, True) for f, kind in deciding]
    evidence += [_evidence(original, f, kind, False) for f, kind in rest + aside]
    return ReflectionIdentity(label=label, rule=RULE, evidence=sorted(evidence, key=lambda e: (e.start, e.end)))


@lru_cache(maxsize=256)
def _vocabulary(question_id: str, attempt_answer: str | None) -> QuestionVocabulary:
    # A run's or a log's reflections come a question at a time: its paragraphs are read once.
    question = questions_by_id().get(question_id)
    if question is None:
        raise ValueError(f"{question_id!r} is not a shipped HotpotQA question id.")
    return question_vocabulary(question, attempt_answer)


@lru_cache(maxsize=1 << 14)
def reflection_identity(text: str, question_id: str, attempt_answer: str | None = None) -> ReflectionIdentity:
    """The label of one reflection on the shipped question `question_id`; `attempt_answer` is the answer of the
    attempt it reflects on, when known (its words are this question's too)."""
    return identity_of(text, _vocabulary(question_id, attempt_answer))


def record_identity(record: TrialRecord) -> ReflectionIdentity | None:
    """The identity of a record's reflection, with its attempt's answer; None when it wrote none."""
    if record.reflection is None:
        return None
    details = record.attempt_details
    answer = getattr(details, "answer", None) if details is not None and details.kind == "hotpotqa" else None
    return reflection_identity(record.reflection, record.task_id, answer)


def line_identity(item: dict[str, object]) -> ReflectionIdentity:
    """`reflexion-identity`'s line {"task": "<question id>", "text", "attempt_answer" (optional)}."""
    answer = item.get("attempt_answer")
    if answer is not None and not isinstance(answer, str):
        raise ValueError("'attempt_answer' is the attempt's answer as a string, or absent when not known.")
    return reflection_identity(str(item["text"]), str(item.get("task")), answer)
