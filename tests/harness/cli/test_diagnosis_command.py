"""`reflexion-diagnosis FILE.jsonl`: one JSON line per input line with the seven fields, the input's keys kept; a bad
line is one sentence naming the line and the field, exit 2, nothing printed; `-` reads stdin; a run directory gets its
diagnosis.jsonl. On a domain from tests/ (tests/diagnosis_walks.py): the shipped domains' rules are tested with them."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

from harness.records.diagnosis_log import read_diagnosis
from tests.diagnosis_walks import (
    CLOSER,
    WRONG,
    register_walks,
    walk_record,
    write_walk_run,
)
from tests.in_process import Outcome, run_module

ROOT = Path(__file__).resolve().parents[3]
COMMAND = "harness.cli.diagnosis_command"
STEPS = [{"action": "north", "observation": CLOSER}, {"action": "east", "observation": WRONG},
         {"action": "east", "observation": "Nothing happens."}]


@pytest.fixture(autouse=True, scope="module")
def walks() -> None:
    register_walks()


def _run(*arguments: str, stdin: str = "") -> Outcome:
    return run_module(COMMAND, *arguments, stdin=stdin)


def _lines(*items: dict) -> str:
    return "".join(json.dumps(item) + "\n" for item in items)


def test_each_line_comes_back_in_order_with_the_seven_fields(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_text(_lines(
        {"domain": "walks", "task": "w/1", "steps": STEPS, "reflection": "The wrong way at step 2.", "reader": "A"},
        {"domain": "walks", "task": "w/2", "steps": STEPS[:1], "reflection": "I never went `up` at step 9."},
        {"domain": "walks", "task": "w/diverged", "steps": STEPS, "reflection": "step 2"},
    ) + "\n")
    result = _run(str(path))
    assert result.returncode == 0, result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(o["task"], o["decisive_step"], o["category"], o["claimed_steps"], o["hit"], o["confabulated"])
            for o in out] == [("w/1", 2, "wrong_way", [2], True, False),
                              ("w/2", None, "search_budget", [], None, True),
                              ("w/diverged", None, None, [2], None, False)]
    assert out[0]["reader"] == "A" and out[0]["error_steps"] == [2, 3] and out[0]["localises"] is True
    assert out[2]["unscored"] == "replay diverged at step 1" and out[0]["unscored"] is None
    assert _run("-", stdin=path.read_text()).stdout == result.stdout


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("{not json", "line 2 is not JSON"),
        ('{"domain": "walks", "domain": "walks"}', "line 2: the key 'domain' appears twice"),
        ('["walks"]', "line 2 is not a JSON object"),
        ('{"domain": "chess", "reflection": "x"}', "line 2: 'domain' is 'chess'; accepted: .*walks"),
        ('{"domain": "walks", "task": "w/1", "steps": []}', "line 2: 'reflection' .* is missing"),
        ('{"domain": "walks", "task": "w/1", "steps": [{"action": "x"}], "reflection": "r"}', "line 2: 'steps' must"),
    ],
)
def test_a_bad_line_is_one_sentence_naming_the_line_and_nothing_is_printed(tmp_path: Path, line: str,
                                                                           says: str) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_text(_lines({"domain": "walks", "task": "w/1", "steps": STEPS, "reflection": "step 2"}) + line + "\n")
    result = _run(str(path))
    assert (result.returncode, result.stdout) == (2, "")
    assert len(result.stderr.strip().splitlines()) == 1
    assert re.search(f"error: {re.escape(str(path))} {says}", result.stderr), result.stderr


def test_a_run_directory_gets_its_diagnosis(tmp_path: Path) -> None:
    run_dir = write_walk_run(tmp_path / "run", [walk_record("w/1", [("n", CLOSER), ("e", WRONG)], "step 2")])
    result = _run(str(run_dir))
    assert result.returncode == 0, result.stderr
    assert "wrote 1 diagnosis record" in result.stdout
    assert [d.truth.decisive_step for d in read_diagnosis(run_dir) or []] == [2]
    assert "wrote 0 diagnosis record" in _run(str(run_dir)).stdout
    assert _run(str(tmp_path)).stderr.startswith(f"error: {tmp_path} holds no manifest.json")


def test_the_console_script_is_the_command() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["reflexion-diagnosis"] == f"{COMMAND}:main"


def test_a_closed_standard_output_is_one_sentence_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started with `>&-` (Python's sys.stdout is None): refused before any line is read, as reflexion-identity is."""
    from harness.cli.diagnosis_command import main

    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "not-read.jsonl")])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "error: standard output is closed, and the diagnosed lines are written there; send it to a file or a pipe.\n"
    )
