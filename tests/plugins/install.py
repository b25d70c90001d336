"""A plugin package of tests/plugins installed for real, so its entry points are real distribution metadata."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path


def install_plugin(package: Path, root: Path) -> Path:
    """`package` installed with pip (no network: --no-index, --no-deps, the installed setuptools) into a new target
    under `root`, built from a copy (the build writes beside its source); the target, to put on PYTHONPATH."""
    source, target = root / "source", root / "site"
    shutil.copytree(package, source)
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    result = subprocess.run(
        [*install, "--target", str(target), str(source)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert list(target.glob("*.dist-info/entry_points.txt"))
    return target
