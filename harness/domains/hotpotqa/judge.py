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


def normalize_with_origins(text: str) -> tuple[str, list[int]]:
    """normalize_answer(text), and for each of its characters the index in `text` it came from (an article's
    space, a collapsed run of spaces: where it began), so a match in the normalized text can be marked in the text."""
    lowered = text.lower()
    # str.lower is one character for one but for a few (İ), and then only per character can say where each came from.
    pairs = (
        list(zip(lowered, range(len(text))))
        if len(lowered) == len(text)
        else [(low, index) for index, ch in enumerate(text) for low in ch.lower()]
    )
    kept = [(ch, index) for ch, index in pairs if ch not in _PUNCTUATION]
    stripped = "".join(ch for ch, _ in kept)
    spaced: list[tuple[str, int]] = []
    last = 0
    for match in _ARTICLES_RE.finditer(stripped):
        spaced += kept[last : match.start()] + [(" ", kept[match.start()][1])]
        last = match.end()
    spaced += kept[last:]
    collapsed: list[tuple[str, int]] = []
    for ch, index in spaced:
        if not ch.isspace():
            collapsed.append((ch, index))
        elif collapsed and collapsed[-1][0] != " ":
            collapsed.append((" ", index))
    if collapsed and collapsed[-1][0] == " ":
        collapsed.pop()
    return "".join(ch for ch, _ in collapsed), [index for _, index in collapsed]


def exact_match(answer: str, key: str) -> bool:
    """Reflexion's `EM(answer, key)`: the answer is correct when both normalize to the same text."""
    return normalize_answer(answer) == normalize_answer(key)
