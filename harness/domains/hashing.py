"""Content hashes of the data a run reads, for its manifest."""

from __future__ import annotations

import hashlib
from pathlib import Path

from harness.llm.prompts import PROMPTS_DIR


def sha256_files(paths: list[Path]) -> str:
    """One SHA-256 over the names and bytes of `paths`, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def prompts_hash(subfolder: str) -> str:
    """SHA-256 of every prompt file of one domain."""
    return sha256_files([p for p in (PROMPTS_DIR / subfolder).rglob("*") if p.is_file()])
