"""Embeddings keyed by the SHA-256 of their text, so a text is embedded once per audit or report, and once ever
when the cache is kept in a file.

The file is a NumPy .npz (read with allow_pickle=False: arrays only, no code) holding the model identity,
the keys and the vectors. A file written for another model is refused rather than mixed in.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from harness.errors import HarnessError
from harness.metrics.semantic._model import Embedder, load_embedder, model_identity

DEFAULT_CACHE_FILE = Path(__file__).resolve().parents[3] / "results" / "embedding_cache" / "all-MiniLM-L6-v2.npz"


class EmbeddingCacheError(HarnessError):
    """The embedding cache file is unreadable or belongs to another model."""


class EmbeddingStats(BaseModel):
    """What the cache did: distinct texts asked for, how many the model embedded, and how long that took."""

    model_config = ConfigDict(frozen=True)

    model: str = Field(description="The model identity the vectors come from.")
    distinct: int = Field(ge=0, description="Distinct texts asked for.")
    embedded: int = Field(ge=0, description="Of those, texts the model embedded; the others came from the cache file.")
    embed_seconds: float = Field(ge=0, description="Wall-clock time the model spent embedding them.")


def text_key(text: str) -> str:
    """The cache key of a text: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Text -> embedding vector, filled by `embedder` on a miss; optionally backed by an .npz file."""

    def __init__(self, embedder: Embedder, model: str, path: Path | None = None) -> None:
        self._embedder = embedder
        self.model = model
        self.path = path
        self._vectors: dict[str, np.ndarray] = _read(path, model) if path is not None and path.is_file() else {}
        self._asked: set[str] = set()
        self._embedded = 0
        self._seconds = 0.0

    @property
    def stats(self) -> EmbeddingStats:
        """Totals over every `embed` call so far."""
        return EmbeddingStats(
            model=self.model, distinct=len(self._asked), embedded=self._embedded, embed_seconds=self._seconds
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, in order; the distinct texts not cached yet are embedded in one batch."""
        keys = [text_key(text) for text in texts]
        missing = {key: text for key, text in zip(keys, texts) if key not in self._vectors}
        self._asked.update(keys)
        if missing:
            start = time.perf_counter()
            rows = np.asarray(self._embedder(list(missing.values())), dtype=np.float32)
            self._seconds += time.perf_counter() - start
            self._embedded += len(missing)
            self._vectors.update(zip(missing, rows))
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._vectors[key] for key in keys])

    def save(self) -> Path | None:
        """Write the cache to its file (atomically: a crash leaves the old file); None when it has none."""
        if self.path is None:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial.npz")
        keys = sorted(self._vectors)
        vectors = np.stack([self._vectors[key] for key in keys]) if keys else np.zeros((0, 0), dtype=np.float32)
        np.savez(partial, model=np.array(self.model), keys=np.array(keys), vectors=vectors)
        os.replace(partial, self.path)
        return self.path


def _read(path: Path, model: str) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            stored, keys, vectors = str(data["model"]), data["keys"], data["vectors"]
    except (OSError, ValueError, KeyError) as error:
        raise EmbeddingCacheError(
            f"cannot read the embedding cache {path}: {error}; delete it to start afresh."
        ) from error
    if stored != model:
        raise EmbeddingCacheError(
            f"the embedding cache {path} holds vectors of {stored}, not {model}; delete it or choose another file."
        )
    return {str(key): row for key, row in zip(keys, vectors)}


def open_model_cache(path: Path | None = DEFAULT_CACHE_FILE) -> EmbeddingCache:
    """The packaged model behind a cache kept in `path` (None: in memory only).

    Raises SemanticExtraMissing without the optional extra.
    """
    embedder = load_embedder()
    return EmbeddingCache(embedder, model_identity(), path)
