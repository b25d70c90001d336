"""HotpotQA faithful to Reflexion, request by request: `python run.py env=hotpotqa` against the scripted server,
judged by the golden runs of the original CoT agent (tests/fixtures/reflexion_golden/hotpotqa_cot_runs.json).

Each golden run is what Reflexion's `CoTAgent` (strategy REFLEXION, gpt-3.5-turbo as a chat model for both roles)
sent and decided for scripted answers. Played through the real entry point and the real openai client over real
HTTP, every request the server receives must equal the original's (the prompt as one user message, temperature 0,
250 tokens, stop at a newline), and every trial's answer, verdict, scratchpad and reflections the original's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.audit.hotpotqa_runs import write_published_run
from harness.records import TrialRecord, read_trials
from harness.records.hotpotqa import QuestionAttempt
from tests.harness.domains.alfworld.test_reflexion_golden import scripted_run, sent
from tests.in_process import run_module
from tests.runner import ROOT

GOLDEN = json.loads((ROOT / "tests" / "fixtures" / "reflexion_golden" / "hotpotqa_cot_runs.json").read_text())
REFLEXION_TRIALS = 5
PUBLISHED_LOG = (
    ROOT / "data/reflexion-logs/hotpotqa_runs/root/CoT/context/last_trial_and_reflexion/100_questions_5_trials.txt"
)

pytestmark = pytest.mark.slow


def golden_call(call: dict[str, Any]) -> dict[str, Any]:
    """A call of the golden run as a chat request: Reflexion's AnyOpenAILLM sends the prompt as one user message."""
    return {
        "messages": [{"role": "user", "content": call["prompt"]}],
        "temperature": 0.0,
        "max_tokens": 250,
        "stop": ["\n"],
    }


def attempt(record: TrialRecord) -> QuestionAttempt:
    assert isinstance(record.attempt_details, QuestionAttempt)
    return record.attempt_details


def play_golden(run: dict[str, Any], run_dir: Path, *overrides: str) -> tuple[list[dict[str, Any]], list[TrialRecord]]:
    """One golden run through run.py: its scripted answers in the order the original asked for them."""
    calls = [call for trial in run["trials"] for call in trial["calls"]]
    answers = {role: iter(run["answers"][role]) for role in ("actor", "reflector")}
    script = [next(answers[call["role"]]) for call in calls]
    return scripted_run(
        script,
        run_dir,
        "env=hotpotqa",
        f"env.questions=[{run['id']}]",
        "model.api=chat",
        f"experiment.trials={REFLEXION_TRIALS}",
        *overrides,
    )


@pytest.mark.parametrize("run", GOLDEN, ids=[run["id"] for run in GOLDEN])
def test_hotpotqa_requests_and_verdicts_equal_the_original(run: dict[str, Any], tmp_path: Path) -> None:
    requests, records = play_golden(run, tmp_path / "run")
    calls = [call for trial in run["trials"] for call in trial["calls"]]
    assert len(requests) == len(calls)
    for index, (request, call) in enumerate(zip(requests, calls)):
        assert sent(request) == golden_call(call), f"request {index} differs"
    trials = run["trials"]
    assert [r.trial for r in records] == [t["trial"] for t in trials]
    assert [attempt(r).answer for r in records] == [t["answer"] for t in trials]
    assert [r.success for r in records] == [t["correct"] for t in trials]
    assert [attempt(r).scratchpad for r in records] == [t["scratchpad"] for t in trials]
    # Each trial starts with every reflection so far, stored as Reflexion stores them (format_step).
    assert [r.memory for r in records] == [t["reflections"] for t in trials]
    assert [r.reflection for r in records if r.reflection is not None] == trials[-1]["reflections"]
    # A correct answer ends the question: no reflection after it, no further trial.
    assert records[-1].success and records[-1].reflection is None


def test_a_live_run_and_a_published_log_are_reported_side_by_side(tmp_path: Path) -> None:
    play_golden(GOLDEN[0], tmp_path / "live")
    write_published_run(PUBLISHED_LOG, tmp_path / "published")
    solved = len({r.task_id for r in read_trials(tmp_path / "published") if r.success})
    result = run_module(
        "harness.cli.report", str(tmp_path / "live"), str(tmp_path / "published"), "--out", str(tmp_path / "report")
    )
    assert result.returncode == 0, result.stderr
    table = (tmp_path / "report" / "report.md").read_text().split("## Conditions", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in table.splitlines() if line.startswith("| ")}
    assert rows["self_diagnosis"].split(" | ")[2].startswith("1/1 ")
    assert rows["published_last_trial_and_reflexion"].split(" | ")[2].startswith(f"{solved}/100 ")
