"""Semantic repetition beside difflib's RRR: reflections compared by all-MiniLM-L6-v2 sentence embeddings.

Importing this package needs only NumPy; the model and its libraries (the optional `semantic` extra)
are imported when `open_model_cache` or `load_embedder` is called.
"""

from harness.metrics.semantic._cache import (
    EmbeddingCache,
    EmbeddingCacheError,
    EmbeddingStats,
    open_model_cache,
    text_key,
)
from harness.metrics.semantic._compare import RepetitionComparison, TaskRepetition, compare_repetition
from harness.metrics.semantic._markdown import (
    COMPARISON_HEADER,
    DISAGREEMENT_HEADER,
    comparison_cells,
    disagreement_rows,
    markdown_table,
    rule_sentence,
)
from harness.metrics.semantic._model import Embedder, SemanticExtraMissing, load_embedder, model_identity
from harness.metrics.semantic._options import add_semantic_options, semantic_cache
from harness.metrics.semantic._rrr import (
    SEMANTIC_THRESHOLD,
    blank_rows_zeroed,
    max_earlier_cosines,
    pooled_semantic_rate,
    semantic_repetition_rate,
)

__all__ = [
    "COMPARISON_HEADER",
    "DISAGREEMENT_HEADER",
    "SEMANTIC_THRESHOLD",
    "Embedder",
    "EmbeddingCache",
    "EmbeddingCacheError",
    "EmbeddingStats",
    "RepetitionComparison",
    "SemanticExtraMissing",
    "TaskRepetition",
    "add_semantic_options",
    "blank_rows_zeroed",
    "compare_repetition",
    "comparison_cells",
    "disagreement_rows",
    "load_embedder",
    "markdown_table",
    "max_earlier_cosines",
    "model_identity",
    "open_model_cache",
    "pooled_semantic_rate",
    "rule_sentence",
    "semantic_cache",
    "semantic_repetition_rate",
    "text_key",
]
