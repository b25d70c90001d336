"""A cache whose lock file cannot be made where it belongs is refused before the run: one sentence, exit 2, no run
directory, nothing created elsewhere. A model call creates `<cache>.lock` beside the cache and locks it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.harness.cli.test_bad_input import assert_one_sentence
from tests.runner import run_cli

RUN = ("env=hotpotqa", "env.first_n=1", "experiment.trials=1", "llm.cache.mode=auto")


def refused(tmp_path: Path, cache: Path) -> str:
    result = run_cli(*RUN, f"llm.cache.path={cache}", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2, result.stderr[-3000:]
    assert not (tmp_path / "run").exists()
    return result.stderr


def test_a_lock_file_that_is_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    """'The cache's claim opens <cache>.lock through a symbolic link and creates its target outside the cache's
    folder.'"""
    cache, target = tmp_path / "cache" / "llm_cache.jsonl", tmp_path / "outside" / "target"
    cache.parent.mkdir()
    target.parent.mkdir()
    (cache.parent / "llm_cache.jsonl.lock").symlink_to(target)
    stderr = refused(tmp_path, cache)
    assert_one_sentence(stderr, [f"llm.cache.path={cache} cannot be used", "llm_cache.jsonl.lock is a symbolic link"])
    assert not target.exists()


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` unwritable for this user: immutable for root (whom modes do not stop), mode 0555 for anyone else."""
    as_root = os.geteuid() == 0
    if as_root and subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False).returncode:
        pytest.skip("chattr +i is not available on this filesystem")
    if not as_root:
        folder.chmod(0o555)
    try:
        yield
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


def test_a_writable_cache_in_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    """'The cache preflight checks the file, not its folder: a writable cache file in a read-only folder passes, the
    run directory is made, and the first miss fails' (creating the lock file beside it)."""
    cache = tmp_path / "cache" / "llm_cache.jsonl"
    cache.parent.mkdir()
    cache.touch()
    with read_only(cache.parent):
        stderr = refused(tmp_path, cache)
    assert_one_sentence(stderr, [f"llm.cache.path={cache} cannot be written: {cache.parent} is read-only"])
    assert "llm_cache.jsonl.lock" in stderr
