"""The command-line options `reflexion-audit` and `reflexion-report` share for semantic RRR."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.metrics.semantic._cache import DEFAULT_CACHE_FILE, EmbeddingCache, open_model_cache
from harness.metrics.semantic._model import EXTRA
from harness.metrics.semantic._rrr import SEMANTIC_THRESHOLD


def _threshold(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a cosine threshold is in (0, 1], not {text}")
    return value


def add_semantic_options(parser: argparse.ArgumentParser) -> None:
    """--semantic, --semantic-threshold and --embedding-cache."""
    parser.add_argument(
        "--semantic", action="store_true", help=f"also measure semantic RRR (needs the optional extra '{EXTRA}')"
    )
    parser.add_argument(
        "--semantic-threshold",
        type=_threshold,
        default=SEMANTIC_THRESHOLD,
        help=f"cosine similarity of a semantic repeat (default {SEMANTIC_THRESHOLD})",
    )
    parser.add_argument(
        "--embedding-cache",
        type=Path,
        default=DEFAULT_CACHE_FILE,
        help="file keeping embeddings between runs (default: results/embedding_cache/)",
    )


def semantic_cache(args: argparse.Namespace) -> EmbeddingCache | None:
    """The model behind its cache when --semantic was given, else None; SemanticExtraMissing without the extra."""
    return open_model_cache(args.embedding_cache) if args.semantic else None
