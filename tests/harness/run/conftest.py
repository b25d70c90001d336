"""The small run, played to the end once per module for the tests that work on copies of a finished run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.runner import run_cli
from tests.small_run import SMALL_RUN


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small run, played to the end once for the module; tests work on copies."""
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    result = run_cli(*SMALL_RUN, f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr
    return run_dir


@pytest.fixture
def copy(finished: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(finished, tmp_path / "run"))
