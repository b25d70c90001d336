"""`python -m harness.metrics.identity FILE.jsonl`: each line printed back, in order, with its label and evidence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness.domains.hotpotqa.questions import load_questions

ROOT = Path(__file__).resolve().parents[3]


def _run(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.metrics.identity", str(path)], cwd=ROOT, capture_output=True, text=True
    )


def test_lines_of_three_domains_come_back_labelled_in_order(tmp_path: Path) -> None:
    question = load_questions()[0]
    lines = [
        {"domain": "alfworld", "task": "pick_cool_then_place_in_recep-Tomato-None-Microwave-10",
         "text": "I will cool the tomato with fridge 1 and put it in microwave 1.", "extra": 1},
        {"domain": "alfworld", "task": "pick_cool_then_place_in_recep-Tomato-None-Microwave-10",
         "text": "I will find the mug\u001b[8m and heat it."},
        {"domain": "humaneval", "task": "HumanEval/0", "text": "It raised an IndexError.",
         "failed_test": "assert has_close_elements([1.0, 2.0], 0.5) == False # output: True"},
        {"domain": "hotpotqa", "task": question.id, "text": "I should read more carefully."},
    ]  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = _run(path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout  # model text stays data: escaped in the JSON
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["text"] for o in out] == [line["text"] for line in lines]
    assert [o["label"] for o in out] == ["on_task", "off_task", "off_task", "vacuous"]
    assert out[0]["extra"] == 1 and out[0]["evidence"][0]["means"] == "Tomato"


def test_a_bad_line_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"domain": "alfworld", "task": "t", "text": "x"}\n{"domain": "webshop", "text": "x"}\n')
    result = _run(path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "line 1" in result.stderr
    path.write_text('{"domain": "webshop", "text": "x"}\n')
    result = _run(path)
    assert result.returncode == 2 and "'domain' is 'webshop'; accepted: alfworld, humaneval, hotpotqa" in result.stderr
