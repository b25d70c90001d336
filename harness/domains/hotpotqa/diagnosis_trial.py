"""A failed HotpotQA trial as the diagnosis rules read it, from a record or from a line of `reflexion-diagnosis`,
and the word-level helpers both rules share (EM's normalisation, whole-word spans, names).

A line holds `task`, `question`, `thought`, `answer` (null where the action did not parse), `gold`,
`supporting_facts` ([[title, sent_id, sentence], ...]) and `reflection`; `action` and `type` (`bridge`,
`comparison`) are read when present. The context is the shipped question's supporting paragraphs when `task` is one
of the 100, else the supporting sentences and the question; the type likewise, else `comparison` when every
supporting article's title is named in the question.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from harness.domains.hotpotqa.config import QuestionType
from harness.domains.hotpotqa.judge import normalize_answer
from harness.domains.hotpotqa.mention import article_name
from harness.domains.hotpotqa.names import words
from harness.domains.hotpotqa.questions import Question, questions_by_id
from harness.records import TrialRecord
from harness.records.hotpotqa import QuestionAttempt

ANSWER_WORDS = 8
"""An unparsed action with no bracket is read as the answer only up to this many words ("The answer is X.")."""
_DASHES = str.maketrans({dash: "-" for dash in "\u2010\u2011\u2012\u2013\u2014\u2015"})
STOPWORDS = frozenset("of in on at to by for and or is was as with from its his her their that which who be".split())
"""Words that carry no content when an answer's words are compared with a sentence's."""


@dataclass(frozen=True, slots=True)
class SupportingFact:
    """One supporting fact: its 1-based number among the question's facts, its article and its sentence."""

    number: int
    title: str
    sentence: str

    @property
    def article(self) -> str:
        """The title without Wikipedia's trailing disambiguation."""
        return article_name(self.title)


@dataclass(frozen=True, slots=True)
class FailedQuestion:
    """What the rules read of one failed trial."""

    task_id: str
    question: str
    kind: QuestionType
    gold: str
    facts: tuple[SupportingFact, ...]
    context: str
    thought: str
    action: str | None
    answer: str | None

    @property
    def given_answer(self) -> str | None:
        """What the attempt answered: Finish's argument, else the bracketed part of an unparsed action, else the
        action's text; stray text after a closing bracket (`] [END OF EXAMPLES`) cut off. None: no answer."""
        text = self.answer
        if text is None and self.action:
            if "[" in self.action:
                text = self.action.split("[", 1)[1]
            elif len(self.action.split()) <= ANSWER_WORDS:
                text = self.action
        if text is None:
            return None
        text = text.split("]", 1)[0].replace("END OF EXAMPLES", "").strip()
        return text or None


def tokens(text: str) -> list[str]:
    """EM's normalised words, every dash read as a hyphen (EM keeps an en dash, so "1947–91" is not "1947-91")."""
    return list(_tokens(text))


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(normalize_answer(text.translate(_DASHES)).split())


def content(found: list[str]) -> list[str]:
    return [word for word in found if word not in STOPWORDS]


def is_span(part: list[str], whole: list[str]) -> bool:
    """Whether `part` occurs in `whole` as consecutive words."""
    size = len(part)
    return size > 0 and any(whole[i : i + size] == part for i in range(len(whole) - size + 1))


@lru_cache(maxsize=4096)
def keys(text: str) -> frozenset[str]:
    """The word keys of a text (accents and case folded, a plural's s dropped)."""
    return frozenset(word.key for word in words(text))


def _facts(raw: Any) -> tuple[SupportingFact, ...]:
    if not isinstance(raw, list) or not raw:
        raise ValueError("supporting_facts must be a non-empty list of [title, sent_id, sentence]")
    facts = []
    for number, fact in enumerate(raw, start=1):
        if not (isinstance(fact, list) and len(fact) == 3 and isinstance(fact[0], str) and isinstance(fact[2], str)):
            raise ValueError(f"supporting_facts[{number - 1}] is not [title, sent_id, sentence]")
        facts.append(SupportingFact(number=number, title=fact[0], sentence=fact[2].strip()))
    return tuple(facts)


def question_facts(question: Question) -> tuple[SupportingFact, ...]:
    """A shipped question's supporting facts, in its order."""
    facts = []
    for number, (title, sent_id) in enumerate(zip(question.supporting_facts.title, question.supporting_facts.sent_id)):
        sentences = question.context.sentences[question.context.title.index(title)]
        sentence = sentences[sent_id].strip() if sent_id < len(sentences) else ""
        facts.append(SupportingFact(number=number + 1, title=title, sentence=sentence))
    return tuple(facts)


def from_record(record: TrialRecord) -> FailedQuestion:
    """A HotpotQA record of a shipped question."""
    attempt = record.attempt_details
    if not isinstance(attempt, QuestionAttempt):
        raise ValueError(f"{record.task_id}: the record keeps no HotpotQA attempt")
    question = questions_by_id().get(record.task_id)
    if question is None:
        raise ValueError(f"{record.task_id!r} is not one of the shipped HotpotQA questions")
    return FailedQuestion(
        task_id=record.task_id,
        question=question.question,
        kind=question.type,
        gold=question.answer,
        facts=question_facts(question),
        context=question.supporting_context(),
        thought=attempt.thought,
        action=attempt.action,
        answer=attempt.answer,
    )


def _text(line: Mapping[str, Any], field: str, nullable: bool = False) -> Any:
    value = line.get(field)
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise ValueError(f"`{field}` must be a string{' or null' if nullable else ''}")
    return value


def _kind(line: Mapping[str, Any], shipped: Question | None, facts: tuple[SupportingFact, ...]) -> QuestionType:
    given = line.get("type")
    if given is not None:
        if given not in ("bridge", "comparison"):
            raise ValueError("`type` must be 'bridge' or 'comparison'")
        return "bridge" if given == "bridge" else "comparison"
    if shipped is not None:
        return shipped.type
    named = keys(_text(line, "question"))
    titles = {fact.article for fact in facts}
    return "comparison" if all(keys(title) <= named for title in titles) else "bridge"


def from_line(line: Mapping[str, Any]) -> tuple[FailedQuestion, str]:
    """A line's trial and its reflection; ValueError naming the field that is wrong."""
    task = _text(line, "task")
    facts = _facts(line.get("supporting_facts"))
    shipped = questions_by_id().get(task)
    question = _text(line, "question")
    context = shipped.supporting_context() if shipped is not None else "\n".join(f.sentence for f in facts)
    trial = FailedQuestion(
        task_id=task,
        question=question,
        kind=_kind(line, shipped, facts),
        gold=_text(line, "gold"),
        facts=facts,
        context=context,
        thought=_text(line, "thought"),
        action=_text(line, "action", nullable=True),
        answer=_text(line, "answer", nullable=True),
    )
    return trial, _text(line, "reflection")
