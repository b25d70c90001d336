"""The 100 HotpotQA questions Reflexion's runs use (data/hotpotqa/), their context, and which ones a run answers.

HotpotQA has no engine: a question is answered once per trial and judged by exact match, so the data and its
selection live here rather than under envs/.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.hotpotqa.config import HotpotQAEnvConfig, QuestionLevel, QuestionType
from harness.errors import GameNotFoundError

DATA_FILE = Path(__file__).resolve().parents[3] / "data" / "hotpotqa" / "hotpot_distractor_sample.jsonl"
PARAGRAPH_SEPARATOR = "\n\n"


class SupportingFacts(BaseModel):
    """The sentences that support the answer: an article's title and a sentence index, one pair per fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: list[str]
    sent_id: list[int]


class Paragraphs(BaseModel):
    """The distractor setting's ten articles: titles and each article's sentences."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: list[str]
    sentences: list[list[str]]


class Question(BaseModel):
    """One HotpotQA question as shipped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    row_index: int = Field(description="Its row in the HotpotQA distractor set Reflexion sampled from.")
    id: str = Field(description="HotpotQA's id: the task id everywhere in the harness.")
    question: str
    answer: str = Field(description="The answer key; never shown to a model.")
    type: QuestionType
    level: QuestionLevel
    supporting_facts: SupportingFacts
    context: Paragraphs

    def supporting_titles(self) -> list[str]:
        """The supporting articles' titles, each once, in the order of the facts."""
        return list(dict.fromkeys(self.supporting_facts.title))

    def paragraph(self, title: str) -> str:
        """One article's sentences joined as Reflexion joins them (with nothing between)."""
        return "".join(self.context.sentences[self.context.title.index(title)])

    def supporting_context(self) -> str:
        """Reflexion's `supporting_paragraphs` (notebooks/CotQA_context.ipynb): the article of every supporting fact,
        in order and once per fact (an article supporting two facts appears twice), separated by a blank line."""
        return PARAGRAPH_SEPARATOR.join(self.paragraph(title) for title in self.supporting_facts.title)


def data_bytes() -> bytes:
    """The shipped questions file, as bytes (what the manifest hashes)."""
    return DATA_FILE.read_bytes()


@lru_cache(maxsize=1)
def load_questions() -> tuple[Question, ...]:
    """All 100 questions, in Reflexion's order (its DataFrame's, after `reset_index(drop=True)`)."""
    lines = data_bytes().decode("utf-8").splitlines()
    return tuple(Question.model_validate(json.loads(line)) for line in lines if line.strip())


def questions_by_id() -> dict[str, Question]:
    return {question.id: question for question in load_questions()}


def select_questions(
    env: HotpotQAEnvConfig, questions: Sequence[Question] | None = None, only: frozenset[str] | None = None
) -> list[Question]:
    """The questions of a run, in the shipped order: by id, type and level, then the first N, then the held-out
    tasks `only` (None: all).

    An unknown id or filters that leave nothing raise GameNotFoundError with one sentence.
    """
    pool = list(load_questions() if questions is None else questions)
    known = [question.id for question in pool]
    for wanted in env.questions:
        if wanted not in known:
            closest = ", ".join(difflib.get_close_matches(wanted, known, n=3, cutoff=0.3)) or "none close"
            raise GameNotFoundError(
                f"env.questions: {wanted!r} is not a shipped HotpotQA question id; ids look like "
                f"'{known[0]}' (closest: {closest})."
            )
    chosen = [
        question
        for question in pool
        if (not env.questions or question.id in env.questions)
        and (not env.types or question.type in env.types)
        and (not env.levels or question.level in env.levels)
    ]
    chosen = chosen[: env.first_n] if env.first_n is not None else chosen
    chosen = [question for question in chosen if only is None or question.id in only]
    if not chosen:
        raise GameNotFoundError(
            f"env.questions={env.questions}, env.types={env.types}, env.levels={env.levels} and "
            f"env.frozen_in={env.frozen_in} together select no question (the shipped 100 are all level hard: 85 "
            "bridge, 15 comparison); loosen one of them."
        )
    return chosen
