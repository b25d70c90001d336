"""The words Reflexion's HotpotQA reflector wrote about many questions ("failed", "given", "pay attention"), read
from the published text logs: a reflection's use of one says nothing of which question it is about
(`harness/domains/hotpotqa/described.py`). `python -m harness.cli.hotpotqa_boilerplate` rewrites the shipped list; a
test holds it to the logs."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from harness.audit.sources import LOADERS, discover_sources
from harness.domains.hotpotqa.names import words
from harness.domains.hotpotqa.terms import content_keys

LOGS = "hotpotqa_runs/"
BOILERPLATE_QUESTIONS = 8
"""A word in the published reflections on this many questions (of the 100) or more is the reflector's boilerplate."""


class Boilerplate(BaseModel):
    """The shipped list: the logs read, the questions they cover, the threshold, the words (sorted)."""

    source: list[str]
    questions: int
    at_least: int
    words: list[str]


def reflection_boilerplate() -> Boilerplate:
    """The shipped list's content, read from the published logs."""
    sources = [s for s in discover_sources()
               if s.format == "hotpotqa_text" and s.skip_reason is None and s.name.startswith(LOGS)]  # fmt: skip
    per_question: dict[str, set[str]] = {}
    for source in sources:
        for task in LOADERS.get(source.format)(source):
            keys = per_question.setdefault(task.task_id, set())
            for reflection in task.reflections:
                keys |= {word.key for word in content_keys(words(reflection))}
    questions = Counter(key for keys in per_question.values() for key in keys)
    return Boilerplate(
        source=[s.name for s in sources],
        questions=len(per_question),
        at_least=BOILERPLATE_QUESTIONS,
        words=sorted(key for key, n in questions.items() if n >= BOILERPLATE_QUESTIONS),
    )
