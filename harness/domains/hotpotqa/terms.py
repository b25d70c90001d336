"""The questions' own terms, as a reader recognises them without capitals: another question's, or this one's.

A reader knows another question from its particular words and phrases whatever their case ("i should have searched
when antic magazine stopped publishing", "the original line of the railroad", the few-shot example's "first person to
break the sound barrier"), and knows this question in a sentence that restates its phrase ("the type of dance that
the chicken is a variation of"). Two readings of the shipped questions and the few-shot examples' questions:

- `word_owners`: the uncommon words (`names.common_words`) of each question's fields (question, titles, answer), read
  as names only in a reflection written without capitals;
- `phrase_owners`: each run of N neighbouring content words (function words left out) of a question's text, held by
  at most PHRASE_OWNERS questions: three words name another question ("original line railroad"), two restate this
  one ("type dance"; two words alone are too often a turn of phrase, "given name", to name another).
"""

from __future__ import annotations

import re
from functools import cache

from harness.domains.hotpotqa.names import (
    CONNECTORS,
    FEWSHOTS_FILE,
    Word,
    common_words,
    words,
)
from harness.domains.hotpotqa.questions import load_questions
from harness.domains.hotpotqa.vocabulary import field_texts, frequent_words

FEWSHOT = "a few-shot example"
PHRASE_OWNERS = 3
"""A pair of words in the texts of more questions than this is a turn of phrase, not one question's."""
_QUESTION_LINE_RE = re.compile(r"^Question: (.*)$", re.MULTILINE)
# Function words, which make no phrase of a question ("has been", "more than").
_STOP = frozenset(
    """about above after again against all also any are because been before being below between both but can could
    did does doing down during each else ever few had has have having her here hers herself him himself his how into
    its itself just many may might more most much must not now off once only other our ours out over own same she
    should some such than that their theirs them then there these they this those through too under until upon very
    was were what when where which while who whom whose why will with would you your one two three""".split()
)  # fmt: skip


def content_keys(found: list[Word]) -> list[Word]:
    """The words that can make a phrase: three letters or more, no function word, no connector, no number."""
    return [
        w for w in found
        if len(w.key) > 2 and not w.key.isdigit() and w.key not in _STOP and w.text.lower() not in CONNECTORS
        and w.key not in frequent_words()
    ]  # fmt: skip


def grams(found: list[Word], n: int) -> list[tuple[Word, ...]]:
    """Each run of `n` neighbouring content words."""
    keyed = content_keys(found)
    return [tuple(keyed[k : k + n]) for k in range(len(keyed) - n + 1)]


def gram_keys(text: str, n: int) -> set[tuple[str, ...]]:
    return {tuple(w.key for w in gram) for gram in grams(words(text), n)}


@cache
def _fewshot_questions() -> tuple[str, ...]:
    return tuple(dict.fromkeys(_QUESTION_LINE_RE.findall(FEWSHOTS_FILE.read_text(encoding="utf-8"))))


@cache
def phrase_owners(n: int) -> dict[tuple[str, ...], frozenset[str]]:
    """Each run of `n` content words of a question's text (or a few-shot example's, owner FEWSHOT), and who writes
    it; runs of more than PHRASE_OWNERS owners are left out."""
    owners: dict[tuple[str, ...], set[str]] = {}
    texts = [(q.id, q.question) for q in load_questions()] + [(FEWSHOT, line) for line in _fewshot_questions()]
    for owner, text in texts:
        for gram in gram_keys(text, n):
            owners.setdefault(gram, set()).add(owner)
    return {gram: frozenset(ids) for gram, ids in owners.items() if len(ids) <= PHRASE_OWNERS}


@cache
def word_owners() -> dict[str, frozenset[str]]:
    """Each uncommon word (three letters or more) of a question's fields, and the questions whose fields hold it."""
    common, frequent = common_words(), frequent_words()
    owners: dict[str, set[str]] = {}
    for question in load_questions():
        for text in field_texts(question):
            for word in words(text):
                if len(word.key) > 2 and word.key not in common and word.key not in frequent and not word.key.isdigit():
                    owners.setdefault(word.key, set()).add(question.id)
    return {key: frozenset(ids) for key, ids in owners.items()}
