"""The code's form: the linter (ruff, the rules of pyproject.toml's [tool.ruff]) and the type checker (mypy over
harness/ and envs/, [tool.mypy]) pass, as the README's test command runs them. Each suppression left in the code
carries its reason on its line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.runner import ROOT

CODE = ("harness", "envs", "tests", "benchmarks", "run.py")


def _run(*command: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={"PATH": "/usr/bin:/bin", "MYPY_CACHE_DIR": str(cache / "mypy"), "RUFF_CACHE_DIR": str(cache / "ruff")},
    )


def test_ruff_finds_nothing(tmp_path: Path) -> None:
    result = _run("ruff", "check", *CODE, cache=tmp_path)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_mypy_finds_nothing(tmp_path: Path) -> None:
    result = _run("mypy", cache=tmp_path)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_every_suppression_says_why_on_its_line() -> None:
    bare = []
    for path in sorted([*(ROOT / "harness").rglob("*.py"), *(ROOT / "envs").rglob("*.py")]):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            ignore = re.search(r"# type: ignore(\[[^\]]*\])?(.*)$", line)
            noqa = re.search(r"# noqa(: [A-Z0-9, ]+)?(.*)$", line)
            for found in (ignore, noqa):
                if found is not None and not found.group(2).strip(" #()"):
                    bare.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert bare == []
