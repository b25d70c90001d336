"""Whether a rule copies a text its build read: a reflection or a trajectory, verbatim, by a long shared run of
words, or by high overlap of its word triples.

Both texts are read as words through the identity rules' normalisation (`plain`: NFKC, format characters gone, accents
and case folded), so a copy written in fullwidth letters or with zero-width spaces is still a copy. The thresholds
are named settings; docs/propagation.md shows them on the recorded rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.alfworld.locations import plain
from harness.records.insights import ExperienceTask
from harness.reflection.insights.rule_gate import entity_words

MIN_SHARED_WORDS = 12
"""A run of this many words in a row, shared with a text read, makes a copy (a sentence or more of it) ..."""
MIN_TRIPLE_OVERLAP = 0.6
"""... as does a rule whose word triples are found in one text read at this share or more (a copy reworded in
places); either only when the source names every thing the rule names (`copies`)."""

_WORD_RE = re.compile(r"[a-z0-9]+")
_NUMBERED_RE = re.compile(r"\b[a-z]+ \d+\b")
SourceKind = Literal["reflection", "trajectory", "plant"]


@lru_cache(maxsize=4096)
def words(text: str) -> tuple[str, ...]:
    """A text's words as the copy rule compares them (a study compares the same texts in every build)."""
    return tuple(_WORD_RE.findall(plain(text)))


@lru_cache(maxsize=4096)
def _triples(tokens: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    return frozenset(tokens[i:i + 3] for i in range(len(tokens) - 2))


class ReadText(BaseModel):
    """One text a build's critic read: a training task's reflection or trajectory, or the plant."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: SourceKind
    task_id: str
    trial: int
    text: str


class Copy(BaseModel):
    """The text a rule copies, and how much of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: ReadText
    shared_words: int = Field(description="The longest run of words in a row the rule shares with it.")
    overlap: float = Field(description="The share of the rule's word triples found in it.")


def read_texts(experience: Sequence[ExperienceTask], plant: tuple[str, int, str] | None = None) -> list[ReadText]:
    """Every reflection and trajectory of the experience; `plant` (task id, trial, text) is labelled as the plant."""
    texts = []
    for task in experience:
        for index, trial in enumerate(task.trials):
            texts.append(ReadText(kind="trajectory", task_id=task.id, trial=index, text=trial.trajectory))
            if trial.reflection:
                planted = plant is not None and (plant[0], plant[1]) == (task.id, index)
                texts.append(ReadText(kind="plant" if planted else "reflection", task_id=task.id, trial=index,
                                      text=trial.reflection))
    return texts


def _compare(rule: tuple[str, ...], source: ReadText) -> Copy:
    theirs = words(source.text)
    match = SequenceMatcher(None, rule, theirs, autojunk=False).find_longest_match(0, len(rule), 0, len(theirs))
    mine = _triples(rule)
    overlap = len(mine & _triples(theirs)) / len(mine) if mine else 0.0
    return Copy(source=source, shared_words=match.size, overlap=round(overlap, 3))


def _things(text: str) -> frozenset[str]:
    """What a text names: its ALFWorld types and its numbered objects and receptacles ("soapbar 1")."""
    return frozenset(entity_words(text)) | frozenset(_NUMBERED_RE.findall(plain(text)))


def copies(rule: str, copy: Copy) -> bool:
    """Whether the comparison makes a copy: a long shared run or a high overlap, and every thing the rule names
    named by the source too. The published reflections share their advice and their frame word for word ("I was
    stuck in a loop in which I continually ..."), so a rule from one task's reflection differs from another's in
    what it names."""
    named = _things(rule)
    close = copy.shared_words >= MIN_SHARED_WORDS or copy.overlap >= MIN_TRIPLE_OVERLAP
    return close and bool(named) and named <= _things(copy.source.text)


def copied_from(rule: str, texts: Sequence[ReadText]) -> Copy | None:
    """The read text the rule copies most of (longest shared run, then overlap), or None when it copies none."""
    tokens = words(rule)
    found = [c for c in (_compare(tokens, text) for text in texts) if copies(rule, c)]
    return max(found, key=lambda c: (c.shared_words, c.overlap), default=None)
