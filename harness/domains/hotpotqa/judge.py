"""Reflexion's judge of an answer: `EM`, exact match after its `normalize_answer` (the SQuAD normalization)."""

from __future__ import annotations

import re
import string

_ARTICLES_RE = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower-cased, punctuation dropped, the articles a/an/the dropped, whitespace collapsed (in Reflexion's order)."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES_RE.sub(" ", text).split())


def exact_match(answer: str, key: str) -> bool:
    """Reflexion's `EM(answer, key)`: the answer is correct when both normalize to the same text."""
    return normalize_answer(answer) == normalize_answer(key)
