"""Close matches for a mistyped task name, shared by every environment's error messages."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest_names(value: str, candidates: Iterable[str]) -> str:
    """Up to three known names close to `value`, comma-separated, or "none close"."""
    close = difflib.get_close_matches(value, list(candidates), n=3, cutoff=0.5)
    return ", ".join(close) if close else "none close"
