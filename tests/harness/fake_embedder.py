"""A stand-in for the sentence-embedding model: hashed bag of words, so tests run without the optional extra."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

DIMENSIONS = 256
FAKE_MODEL = "fake bag-of-words (tests)"


class FakeEmbedder:
    """Counts words into hashed buckets; equal texts get equal vectors, texts sharing words get close ones."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        rows = np.zeros((len(texts), DIMENSIONS))
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                rows[i, int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1
        return rows

    @property
    def embedded(self) -> list[str]:
        """Every text embedded, in order."""
        return [text for batch in self.batches for text in batch]
