"""A reflection as the identity rules read it: NFKC, format characters gone, accents composed, with a map back.

A model's text may hide a word from a rule without hiding it from a reader: a zero-width space inside "mug", a soft
hyphen inside a function's name, a variation selector or a combining grapheme joiner (invisible marks), fullwidth
letters, an accent written as a letter and a combining mark. Every
identity rule reads the normalised text, and every span it finds is mapped back, so evidence always points into the
text as written.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from dataclasses import dataclass

# Anything beyond ASCII, with the character before it (a combining mark belongs to the letter it follows).
_SPECIAL_RE = re.compile(r"[\x00-\x7f]?[^\x00-\x7f]+")
# Unicode's default-ignorable code points that are not format characters (Cf): shown as nothing, so they hide a
# word from a rule only. The combining grapheme joiner, the variation selectors (both Mn, which NFKC keeps), the
# Hangul fillers, the Khmer and Mongolian invisible marks, and the unassigned ignorable blocks (DerivedCoreProperties,
# Default_Ignorable_Code_Point).
_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF),
)  # fmt: skip


def is_invisible(char: str) -> bool:
    """A format character (zero-width space, joiners, soft hyphen, BOM, bidi marks) or another default-ignorable one
    (a variation selector, the combining grapheme joiner): nothing a reader sees."""
    if unicodedata.category(char) == "Cf":
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _IGNORABLE_RANGES)


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """`text` is `original` normalised; `starts[i]` and `ends[i]` are where text[i] came from in `original`.

    A dataclass, not a model: it is built for texts of any length, and its maps are never validated or stored.
    """

    original: str
    text: str
    starts: array
    ends: array

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span for text[start:end]."""
        if start >= end:
            at = self.starts[start] if start < len(self.text) else len(self.original)
            return at, at
        return self.starts[start], self.ends[end - 1]


def _clusters(segment: str, offset: int) -> list[tuple[str, int, int]]:
    """The segment's characters without invisible ones (`is_invisible`), grouped as a letter and the combining marks
    after it, each with its original span."""
    kept = [(c, offset + i) for i, c in enumerate(segment) if not is_invisible(c)]
    clusters: list[tuple[str, int, int]] = []
    for char, at in kept:
        if clusters and unicodedata.combining(char):
            text, start, _ = clusters[-1]
            clusters[-1] = (text + char, start, at + 1)
        else:
            clusters.append((char, at, at + 1))
    return clusters


def normalize_text(original: str) -> NormalizedText:
    """NFKC per letter-and-marks cluster (so accents compose and fullwidth letters fold), invisible characters removed.

    Linear in the text: ASCII runs are copied with an identity map in C, only the rest is read a character at a time.
    """
    pieces: list[str] = []
    starts, ends = array("q"), array("q")
    done = 0
    for match in _SPECIAL_RE.finditer(original):
        pieces.append(original[done : match.start()])
        starts.extend(range(done, match.start()))
        ends.extend(range(done + 1, match.start() + 1))
        for cluster, start, end in _clusters(match.group(), match.start()):
            folded = unicodedata.normalize("NFKC", cluster)
            pieces.append(folded)
            starts.extend([start] * len(folded))
            ends.extend([end] * len(folded))
        done = match.end()
    pieces.append(original[done:])
    starts.extend(range(done, len(original)))
    ends.extend(range(done + 1, len(original) + 1))
    return NormalizedText(original=original, text="".join(pieces), starts=starts, ends=ends)


def fold_accents(word: str) -> str:
    """A word without its accents, case-folded: the key two spellings of one name share ("Śivarāma", "Sivarama")."""
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
