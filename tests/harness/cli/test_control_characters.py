"""The command line's own output is text: a hostile override or run directory never reaches the terminal or
run.log as a control sequence, a bidirectional override or a newline that fakes a line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.errors import EXIT_BAD_INPUT
from tests.harness.control_characters import HOSTILE, acting
from tests.runner import run_cli
from tests.small_run import SMALL_RUN

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ")
FAKE_LINE = "\n2026-01-01 00:00:00,000 INFO all trials solved"


@pytest.mark.parametrize(
    "override",
    [f"hydra.run.dir={{tmp}}/a{HOSTILE}b\u202e", "hydra.searchpath=[file://{tmp}/\x1b[31mx]"],
    ids=["run dir", "search path"],
)
def test_an_override_hydra_cannot_read_is_one_error_line_without_control_characters(
    tmp_path: Path, override: str
) -> None:
    """Hydra's lexer message quotes the override as it is; the one `error:` line shows its characters."""
    result = run_cli(override.format(tmp=tmp_path))
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert result.stderr.startswith("error: ") and "is not an override Hydra can read" in result.stderr
    assert acting(result.stderr) == [] and result.stderr.count("\n") == 1 and result.stderr.endswith("\n")
    assert list(tmp_path.iterdir()) == []


def test_the_run_log_lines_show_a_hostile_run_directory(tmp_path: Path) -> None:
    """The directory holds ESC, U+202E and a newline followed by what would pass for a log line of its own;
    quoted, Hydra takes it as it is."""
    run_dir = tmp_path / f"{HOSTILE}{FAKE_LINE}"
    result = run_cli(*SMALL_RUN, f'hydra.run.dir="{run_dir}"')
    assert result.returncode == 0, result.stderr
    log = (run_dir / "run.log").read_text()
    for output in (result.stderr, log):
        assert "run directory: " in output and "summary in " in output
        assert acting(output) == [], output
        assert all(TIMESTAMP.match(line) for line in output.splitlines()), output
    assert "␛[31mx<U+202E>y␊2026-01-01" in log
