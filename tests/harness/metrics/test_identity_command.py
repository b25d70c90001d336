"""`reflexion-identity FILE.jsonl`: each line printed back, in order, with its label and evidence; what
the rest of the harness refuses, refused in one sentence; a closed pipe and the usage handled as a command should."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.domains.hotpotqa.questions import load_questions
from harness.cli.identity import main
from tests.in_process import Outcome, run_module

ROOT = Path(__file__).resolve().parents[3]
MUG_TO_DESK = "pick_and_place_simple-Mug-None-Desk-308"


def _run(*arguments: str, stdin: str = "") -> Outcome:
    """`reflexion-identity <arguments>` in this process (a closed pipe needs a real one: below)."""
    return run_module("harness.cli.identity", *arguments, stdin=stdin)


def test_lines_of_three_domains_come_back_labelled_in_order(tmp_path: Path) -> None:
    question = load_questions()[0]
    lines = [
        {"domain": "alfworld", "task": "pick_cool_then_place_in_recep-Tomato-None-Microwave-10",
         "text": "I will cool the tomato with fridge 1 and put it in microwave 1.", "extra": 1},
        {"domain": "alfworld", "task": "pick_cool_then_place_in_recep-Tomato-None-Microwave-10",
         "text": "I will find the mug\u001b[8m and heat it."},
        # Feedback given and matched; an error type against feedback it does not match names nothing; none given.
        {"domain": "humaneval", "task": "HumanEval/0", "text": "has_close_elements([1.0, 2.0], 0.5) returned True.",
         "failed_test": "assert has_close_elements([1.0, 2.0], 0.5) == False # output: True"},
        {"domain": "humaneval", "task": "HumanEval/0", "text": "It raised an IndexError.",
         "failed_test": "assert has_close_elements([1.0, 2.0], 0.5) == False # output: True"},
        {"domain": "humaneval", "task": "HumanEval/0", "text": "The threshold comparison must be strict."},
        {"domain": "hotpotqa", "task": question.id, "text": "I should read more carefully."},
        {"domain": "hotpotqa", "task": question.id, "text": "I answered Zanzibar too fast.", "attempt_answer": "Zanzibar"},
    ]  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = _run(str(path))
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout  # model text stays data: escaped in the JSON
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["text"] for o in out] == [line["text"] for line in lines]
    assert [o["label"] for o in out] == ["on_task", "off_task", "on_task", "vacuous", "on_task", "vacuous", "on_task"]
    assert out[0]["extra"] == 1 and out[0]["evidence"][0]["means"] == "Tomato"


def test_a_bad_line_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"domain": "alfworld", "task": "t", "text": "x"}\n{"domain": "webshop", "text": "x"}\n')
    result = _run(str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "line 1" in result.stderr
    path.write_text('{"domain": "webshop", "text": "x"}\n')
    result = _run(str(path))
    assert result.returncode == 2 and "'domain' is 'webshop'; accepted: alfworld, humaneval, hotpotqa" in result.stderr


@pytest.mark.parametrize(
    ("line", "says"),
    [
        # An object type ALFWorld does not have: once labelled vacuous instead of refused.
        (json.dumps({"domain": "alfworld", "task": "pick_and_place_simple-Spaceship-None-Desk-308", "text": "x"}),
         "names the object 'Spaceship', which ALFWorld does not have"),
        # A key given twice: which one holds is unclear (the harness's logs refuse it too).
        ('{"domain": "alfworld", "task": "%s", "text": "take the mug", "text": "take the pencil"}' % MUG_TO_DESK,
         "the key 'text' appears twice in one object"),
        # NaN: once accepted and printed back, so the output was not JSON.
        ('{"domain": "alfworld", "task": "%s", "text": "take the mug", "score": NaN}' % MUG_TO_DESK,
         "NaN is not a JSON number"),
        # A number beyond a float's range: read as infinity, then a traceback when printed back.
        ('{"domain": "alfworld", "task": "%s", "text": "take the mug", "score": 1e999}' % MUG_TO_DESK,
         "1e999 is a number too large for a float"),
        # Nesting deep enough to exhaust the parser's recursion: once a traceback.
        ('{"domain": "alfworld", "task": "%s", "text": "x", "deep": %s1%s}' % (MUG_TO_DESK, "[" * 100_000, "]" * 100_000),
         "nested too deeply"),
    ],
    ids=["unknown object type", "a key twice", "NaN", "1e999", "deep nesting"],
)  # fmt: skip
def test_what_the_harness_refuses_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, says: str
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(SystemExit) as stopped:
        main([str(path)])
    out, err = capsys.readouterr()
    assert stopped.value.code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and says in err and "line 1" in err


def test_a_reader_that_stops_reading_ends_it_quietly(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    line = json.dumps({"domain": "alfworld", "task": MUG_TO_DESK, "text": "I will take the mug to desk 1. " * 20})
    path.write_text((line + "\n") * 400)  # more than a pipe's buffer, so the writer meets the closed end
    command = [sys.executable, "-m", "harness.cli.identity", str(path)]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()  # `| head -1`
        process.stdout.close()
        error = process.stderr.read()
        code = process.wait()
    assert json.loads(first)["label"] == "on_task"
    assert error == "" and code == 141  # 128 + SIGPIPE, as `reflexion-gate show | head` exits


def test_a_closed_standard_output_is_one_sentence_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """'The identity command gives a traceback when stdout is closed' (`>&-`, where Python's sys.stdout is None)."""
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"domain": "alfworld", "task": MUG_TO_DESK, "text": "take the mug"}) + "\n")
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(SystemExit) as stopped:
        main([str(path)])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "error: standard output is closed, and the labelled lines are written there; send it to a file or a pipe.\n"
    )


def test_the_usage_prints_as_its_lines() -> None:
    result = _run()
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and result.stdout == ""
    assert lines[0].startswith("`reflexion-identity FILE.jsonl`") and len(lines) > 5
    assert any(line.strip().startswith('{"domain": "humaneval"') for line in lines)
    assert lines[-1] == "error: give one JSON-lines file (or -), got 0 arguments."
    helped = _run("--help")
    assert helped.returncode == 0 and helped.stdout.splitlines()[0] == lines[0] and helped.stderr == ""
