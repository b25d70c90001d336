"""The harness's exact match against Reflexion's own verdicts: every finished answer of the published CoT-with-context
logs (data/reflexion-logs/hotpotqa_runs/root/CoT/context/*/*.txt) says `Answer is CORRECT` or `INCORRECT`, and the
agent block it sits in ends with `Correct answer: <key>`; the harness's judge must reach the same verdict on each."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.domains.hotpotqa.agent import FINISH, parse_action
from harness.domains.hotpotqa.judge import exact_match, normalize_answer
from tests.runner import ROOT

LOGS = sorted((ROOT / "data" / "reflexion-logs" / "hotpotqa_runs" / "root" / "CoT" / "context").glob("*/*.txt"))
# Every agent block starts with its context; its answers (the last trial's, and in last_trial runs the previous
# one's) are judged against the one key it prints.
_BLOCK_START_RE = re.compile(r"^(?=Context: )", re.MULTILINE)
_KEY_RE = re.compile(r"^Correct answer: (.*)$", re.MULTILINE)
_JUDGED_RE = re.compile(r"^Action: (.*)\nObservation: Answer is (CORRECT|INCORRECT)$", re.MULTILINE)


def judged_answers(text: str) -> list[tuple[str, str, bool]]:
    """(answer, key, Reflexion's verdict) of every finished answer of a log, in order."""
    found = []
    for block in _BLOCK_START_RE.split(text):
        keys = _KEY_RE.findall(block)
        judged = _JUDGED_RE.findall(block)
        assert len(keys) == 1 or not judged, f"a block with answers names {len(keys)} keys: {block[:120]!r}"
        for action, verdict in judged:
            parsed = parse_action(action)
            assert parsed is not None and parsed[0] == FINISH, action
            found.append((parsed[1], keys[0], verdict == "CORRECT"))
    return found


def test_the_logs_are_shipped() -> None:
    assert [p.relative_to(LOGS[0].parents[1]).as_posix() for p in LOGS] == [
        "last_trial/100_questions_8_trials.txt",
        "last_trial_and_reflexion/100_questions_5_trials.txt",
        "reflexion/100_questions_5_trials.txt",
        "reflexion/100_questions_8_trials.txt",
        "reflexion/appendix_cot_context.txt",
    ]


@pytest.mark.parametrize("log", LOGS, ids=[p.parent.name + "/" + p.name for p in LOGS])
def test_exact_match_agrees_with_every_published_verdict(log: Path) -> None:
    text = log.read_text()
    answers = judged_answers(text)
    # Every verdict line of the log is counted: none is skipped by the block split.
    assert len(answers) == len(re.findall(r"^Observation: Answer is (?:CORRECT|INCORRECT)$", text, re.MULTILINE))
    disagreements = [(a, k, v) for a, k, v in answers if exact_match(a, k) != v]
    assert disagreements == []
    assert {v for _, _, v in answers} == {True, False}


def test_the_published_verdicts_need_each_step_of_the_normalization() -> None:
    answers = {(a, k, v) for log in LOGS for a, k, v in judged_answers(log.read_text())}
    correct = [(a, k) for a, k, v in answers if v]
    # Correct answers that differ from their key as written: case, punctuation, articles or spacing made them equal.
    assert any(a != k and a.lower() == k.lower() for a, k in correct)
    assert any(a != k and a.lower() != k.lower() for a, k in correct)
    assert ("Jonny Craig", 'Jonny" Craig') in correct


def test_normalization_is_reflexions_order() -> None:
    assert normalize_answer("  The Beatles!  ") == "beatles"
    assert normalize_answer("Bath,  Maine") == "bath maine"
    # Punctuation goes first and leaves no space, so an article glued on by it stays part of the word.
    assert normalize_answer("The.Beatles") == "thebeatles"
    assert normalize_answer("Théâtre") == "théâtre"
    assert exact_match("An Apple", "apple") and not exact_match("GmbH", "Gesellschaft mit beschränkter Haftung")
