"""Another question described in common words: a reflection that names nothing of its own question ("I should focus
on researching the type of dance that the chicken is a change of pace of, which originated from the polka") but whose
uncommon words are another question's, read as a reader reads it: about that question, not about nothing.

A word counts when another shipped question's text holds it, this question's fields and paragraphs do not, and
Reflexion's reflector did not write it about many questions (`data/hotpotqa/reflection_boilerplate.json`: "failed",
"given", "pay", made by `python -m harness.cli.hotpotqa_boilerplate`). Each counts by its rarity among the questions
(log of the questions over the questions holding it); words weighing DESCRIBED_WEIGHT together describe another
question. One such word ("the number of schools") is too often a turn of phrase to say which: it stays vacuous.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from functools import cache
from pathlib import Path

from harness.domains.hotpotqa.names import words
from harness.domains.hotpotqa.questions import load_questions
from harness.domains.hotpotqa.terms import content_keys
from harness.domains.hotpotqa.vocabulary import QuestionVocabulary

BOILERPLATE_FILE = Path(__file__).resolve().parents[3] / "data" / "hotpotqa" / "reflection_boilerplate.json"
DESCRIBED_WEIGHT = 6.0
"""Summed rarity (natural log of shipped questions over the questions whose text holds the word) at which a
reflection's words describe another question: a word of one question in 100 weighs 4.6, of two 3.9."""


@cache
def boilerplate() -> frozenset[str]:
    """Word keys Reflexion's reflector wrote about many questions: they say nothing of which one."""
    return frozenset(json.loads(BOILERPLATE_FILE.read_text(encoding="utf-8"))["words"])


@cache
def _question_words() -> tuple[dict[str, frozenset[str]], Counter[str]]:
    """Each shipped question's content word keys, and in how many questions' texts each key stands."""
    own = {q.id: frozenset(w.key for w in content_keys(words(q.question))) for q in load_questions()}
    return own, Counter(key for keys in own.values() for key in keys)


def described_words(text: str, vocabulary: QuestionVocabulary) -> list[tuple[int, int, str, float]]:
    """Each word of `text` that describes another question: (start, end, key, weight), in the text's order."""
    own, holders = _question_words()
    known = set(vocabulary.words) | vocabulary.articles | own.get(vocabulary.question_id, frozenset())
    questions, generic = len(own), boilerplate()
    found, seen = [], set()
    for word in content_keys(words(text)):
        if word.key in holders and word.key not in known and word.key not in generic and word.key not in seen:
            seen.add(word.key)
            found.append((word.start, word.end, word.key, math.log(questions / holders[word.key])))
    return found


def describes_another(text: str, vocabulary: QuestionVocabulary) -> list[tuple[int, int, str, float]]:
    """The words by which `text` describes another question, or none when they weigh under DESCRIBED_WEIGHT."""
    found = described_words(text, vocabulary)
    return found if sum(weight for *_, weight in found) >= DESCRIBED_WEIGHT else []
