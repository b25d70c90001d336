"""Object mention for HotpotQA (the harness's own definition; the study defines none for it): does a reflection
name one of the question's supporting articles?

An article is named by its title without Wikipedia's trailing disambiguation ("William King (governor)" is named
"William King"). strict: that name exactly, case-sensitive. normalized: the name after Reflexion's answer
normalization (case, punctuation and the articles a/an/the ignored), as whole words of the normalized reflection.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.domains.hotpotqa.judge import normalize_answer, normalize_with_origins
from harness.domains.hotpotqa.questions import questions_by_id
from harness.metrics.core import MentionCounts
from harness.metrics.object_mention import MentionSpan, MentionVariant, strict_spans
from harness.records import TrialRecord

MENTION_NOTE = (
    "HotpotQA (the harness's own rule): the object is a supporting article, named by its title without a trailing "
    "disambiguation; strict: that name exactly, case-sensitive; normalized: after Reflexion's answer "
    "normalization, as whole words."
)
_DISAMBIGUATION_RE = re.compile(r"\s+\([^()]*\)$")
TITLE_SEPARATOR = " | "


def article_name(title: str) -> str:
    """The title without a trailing parenthesised disambiguation."""
    return _DISAMBIGUATION_RE.sub("", title)


def _whole_words(wanted: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(wanted)}(?!\w)")


def names_article(reflection: str, title: str, variant: MentionVariant) -> bool:
    """Whether a reflection names one article."""
    name = article_name(title)
    if variant == "strict":
        return name in reflection
    if variant == "normalized":
        wanted = normalize_answer(name)
        return bool(wanted) and _whole_words(wanted).search(normalize_answer(reflection)) is not None
    raise ValueError(f"unknown mention variant {variant!r}; accepted: strict, normalized.")


def article_spans(reflection: str, titles: Sequence[str]) -> list[MentionSpan]:
    """Where `names_article` finds each article: each exact name (strict), each whole-word match of the normalized
    name in the normalized reflection, marked from its first character's source to its last's (normalized)."""
    said, origins = normalize_with_origins(reflection)
    spans = []
    for name in map(article_name, titles):
        spans += strict_spans(reflection, name)
        if wanted := normalize_answer(name):
            spans += [
                MentionSpan(start=origins[m.start()], end=origins[m.end() - 1] + 1, variant="normalized")
                for m in _whole_words(wanted).finditer(said)
            ]
    return spans


def supporting_titles(task_id: str) -> list[str]:
    """The supporting articles of a shipped question; ValueError for an id that is none."""
    question = questions_by_id().get(task_id)
    if question is None:
        raise ValueError(f"{task_id!r} is not a shipped HotpotQA question id.")
    return question.supporting_titles()


def task_target(task_id: str) -> str:
    """What object mention looks for: the supporting articles' titles."""
    return TITLE_SEPARATOR.join(supporting_titles(task_id))


def article_mention(reflections: Sequence[str], titles: Sequence[str]) -> MentionCounts:
    """Reflections naming some supporting article, under both rules."""
    return MentionCounts(
        reflections=len(reflections),
        strict=sum(any(names_article(r, t, "strict") for t in titles) for r in reflections),
        normalized=sum(any(names_article(r, t, "normalized") for t in titles) for r in reflections),
    )


def reflection_spans(record: TrialRecord) -> list[MentionSpan]:
    """Where the record's reflection names one of its question's supporting articles."""
    if record.reflection is None:
        return []
    return article_spans(record.reflection, supporting_titles(record.task_id))


def task_mentions(records: Sequence[TrialRecord]) -> MentionCounts:
    """Object mention over one question's reflections (one condition)."""
    reflections = [r.reflection for r in sorted(records, key=lambda r: r.trial) if r.reflection is not None]
    return article_mention(reflections, supporting_titles(records[0].task_id) if records else [])
