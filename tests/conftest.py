"""Fixtures shared by the whole suite."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The finished runs every test may read, each played once per session.
pytest_plugins = ["tests.finished_runs"]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A run directory that does not exist yet."""
    return tmp_path / "run"


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Callable[..., Path]]:
    """`mount(name, *options)`: a 256 KB tmpfs at tmp_path/name (`size=...` in options to change it; root only, the
    test is skipped otherwise), unmounted after the test."""
    mounted: list[Path] = []

    def make(name: str, *options: str) -> Path:
        point = tmp_path / name
        point.mkdir()
        sized = options if any(o.startswith("size=") for o in options) else ("size=256k", *options)
        try:
            result = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(sized), "tmpfs", str(point)])
        except OSError:
            pytest.skip("no mount command")
        if result.returncode != 0:
            pytest.skip("mounting a tmpfs needs root")
        mounted.append(point)
        return point

    yield make
    for point in mounted:
        subprocess.run(["umount", str(point)])
