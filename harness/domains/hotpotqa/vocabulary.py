"""A HotpotQA question's own vocabulary, and the few-shot examples' names that belong to no question the agent had.

A question's own words are those of the question, its ten context titles (without a disambiguation), the gold answer
and, when known, the attempt's answer: a reflection that names one of them is working on this question, whatever it
gets wrong. The few-shot worked examples of Reflexion's prompts sat above every question; their names are another
task's unless this question has them too (two shipped questions are few-shot examples).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from harness.domains.hotpotqa.mention import article_name
from harness.domains.hotpotqa.names import CONNECTORS, FEWSHOTS_FILE, common_words, find_names, words
from harness.domains.hotpotqa.questions import Question, load_questions

_QUESTION_LINE_RE = re.compile(r"^Question: (.*)$", re.MULTILINE)
# Answers that name nothing: every yes/no question would otherwise own the words.
_EMPTY_ANSWERS = frozenset({"yes", "no"})
FREQUENT_SHARE = 10
"""A word in the fields of 1 in FREQUENT_SHARE questions or more identifies none of them."""


@dataclass(frozen=True, slots=True)
class Phrase:
    """A title or an answer as word keys, and what it is ("title: Kent Baer", "gold answer: ...")."""

    keys: tuple[str, ...]
    means: str


@dataclass(frozen=True, slots=True)
class QuestionVocabulary:
    """`words`: each word key of the question's fields and the first field it is in; `phrases`: its titles and answers
    as phrases, each worth finding in lower case too ("dance move", "bhavageete"); `articles`: the word keys of its
    ten paragraphs, where the people, places and works it leads to are written."""

    words: dict[str, str]
    phrases: tuple[Phrase, ...]
    articles: frozenset[str]
    question_id: str = ""


def _fields(question: Question, attempt_answer: str | None) -> list[tuple[str, str]]:
    titles = [html.unescape(article_name(title)) for title in question.context.title]
    fields = [(title, f"title: {title}") for title in titles]
    fields.append((question.question, "the question"))
    answers = [(question.answer, "gold answer"), (attempt_answer, "the attempt's answer")]
    fields += [(html.unescape(text), f"{what}: {text}") for text, what in answers if text]
    return fields


def field_texts(question: Question) -> list[str]:
    """The question's fields as text: its titles (without a disambiguation), the question, the gold answer."""
    return [text for text, _ in _fields(question, None)]


def _content(text: str) -> tuple[str, ...]:
    return tuple(word.key for word in words(text) if word.text.lower() not in CONNECTORS)


@cache
def frequent_words() -> frozenset[str]:
    """Keys in the fields of at least a tenth of the shipped questions ("the", "what", "american", "list"): a word
    that many questions share says nothing of which one a reflection is about."""
    questions = load_questions()
    counts: Counter[str] = Counter()
    for question in questions:
        counts.update({key for text, _ in _fields(question, None) for key in _content(text)})
    return frozenset(key for key, n in counts.items() if n * FREQUENT_SHARE >= len(questions))


def question_vocabulary(question: Question, attempt_answer: str | None = None) -> QuestionVocabulary:
    """The words and phrases that are this question's (the attempt's answer among them when given)."""
    own: dict[str, str] = {}
    phrases = []
    common, frequent = common_words(), frequent_words()
    for text, means in _fields(question, attempt_answer):
        keys = _content(text)
        for key in keys:
            if len(key) > 1 and key not in frequent:
                own.setdefault(key, means)
        worth = len(keys) >= 2 or (len(keys) == 1 and keys[0] not in common)
        if worth and " ".join(keys) not in _EMPTY_ANSWERS and means != "the question":
            phrases.append(Phrase(keys=keys, means=means))
    articles = frozenset(w.key for sentences in question.context.sentences for w in words("".join(sentences)))
    return QuestionVocabulary(words=own, phrases=tuple(phrases), articles=articles, question_id=question.id)


@cache
def fewshot_words() -> frozenset[str]:
    """Keys of the few-shot examples' names and of the uncommon words of their questions ("orogeny")."""
    text = FEWSHOTS_FILE.read_text(encoding="utf-8")
    common = common_words()
    keys = {word.key for name in find_names(text) for word in name.words}
    for line in _QUESTION_LINE_RE.findall(text):
        keys |= {word.key for word in words(line)}
    return frozenset(key for key in keys if key not in common and not key.isdigit())
