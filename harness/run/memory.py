"""Reflective memory: the window of recent reflections an actor or reflector reads."""

from __future__ import annotations

from collections.abc import Sequence


def memory_window(reflections: Sequence[str], size: int) -> list[str]:
    """The last `size` reflections, oldest first (Reflexion keeps 3)."""
    if size <= 0:
        return []
    return list(reflections[-size:])
