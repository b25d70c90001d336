"""The small run, finished once per session (tests/finished_runs.py), for the tests that work on copies of it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def finished(small_run: Path) -> Path:
    """The small run, played to the end once for the session; never changed (tests take `copy`)."""
    return small_run


@pytest.fixture
def copy(small_run: Path, copy_run: Callable[[Path], Path]) -> Path:
    return copy_run(small_run)
