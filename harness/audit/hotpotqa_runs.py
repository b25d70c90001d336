"""A published Reflexion HotpotQA CoT log as a run directory of this domain, so `reflexion-report` shows it
beside live runs: the audit's importer reads the log, and each agent's trials become the same TrialRecords a live
run writes (question ids, memory, reflections, answers and verdicts), measured by the same metrics.

`reflexion-hotpotqa-runs LOG RUN_DIR` writes `trials.jsonl` and `manifest.json` into RUN_DIR.
Only logs whose agents read reflections qualify (`reflexion`, `last_trial_and_reflexion`, `base`); a `last_trial`
log's memory is the previous trace, not reflections. The logs name no model and count no tokens: the records say
`published` for both roles and zero use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from harness.audit.hotpotqa import LoggedAttempt, parse_text_log, run_strategy, text_log_skip_reason
from harness.domains.hotpotqa.agent import end_reason_of, finish_answer, observation_of, parse_action
from harness.records.hotpotqa import QuestionAttempt
from harness.domains.hotpotqa.questions import load_questions
from harness.errors import HarnessError
from harness.records import Manifest, TrialLog, TrialRecord, write_manifest
from harness.records.step import Step
from harness.records.usage import Usage

PUBLISHED_MODEL = "published"
_BLOCK_END_RE = re.compile(r"^Correct answer:.*$", re.MULTILINE)
_THOUGHT_RE = re.compile(r"^Thought: ?(.*)$", re.MULTILINE)
_ACTION_RE = re.compile(r"^Action: ?(.*)$", re.MULTILINE)


class PublishedLogError(HarnessError):
    """A published log cannot be turned into records of this domain."""


def condition_name(log: Path) -> str:
    """The condition a published log's records carry: `published_<its Reflexion strategy>`."""
    return f"published_{run_strategy(log)}"


def _attempt(block: str, correct: bool, earlier: list[str]) -> tuple[QuestionAttempt, list[Step]]:
    """The last Thought and Action of an agent block (its last trial's) with the log's verdict, and its trajectory."""
    thoughts, actions = _THOUGHT_RE.findall(block), _ACTION_RE.findall(block)
    thought = thoughts[-1] if thoughts else ""
    action = actions[-1] if actions else None
    parsed = parse_action(action) if action is not None else None
    answer = finish_answer(parsed)
    scratchpad, steps = f"\nThought: {thought}", []
    if action is not None:
        observation = observation_of(parsed, correct)
        scratchpad += f"\nAction: {action}\nObservation: {observation}"
        steps = [Step(action=action, observation=observation)]
    attempt = QuestionAttempt(
        thought=thought,
        action=action,
        action_type=parsed[0] if parsed else None,
        answer=answer,
        earlier_answers=list(earlier),
        scratchpad=scratchpad,
    )
    return attempt, steps


def _played(attempts: Sequence[tuple[LoggedAttempt, str]]) -> list[tuple[int, LoggedAttempt, str]]:
    """(log trial, agent, block) once per trial, up to the first correct one: solved agents are printed again,
    unchanged, in every later trial."""
    by_trial: dict[int, tuple[LoggedAttempt, str]] = {}
    for attempt, block in attempts:
        if attempt.trial is None:
            raise PublishedLogError(f"the log prints no trial headers, so {attempt.question!r} has no trial order.")
        by_trial.setdefault(attempt.trial, (attempt, block))
    played = []
    for trial in sorted(by_trial):
        played.append((trial, *by_trial[trial]))
        if by_trial[trial][0].status == "CORRECT":
            break
    return played


def published_records(log: Path) -> list[TrialRecord]:
    """Every played trial of every question of a published CoT log, as records keyed by the HotpotQA id."""
    if reason := text_log_skip_reason(log):
        raise PublishedLogError(f"{log} cannot be read as reflections: {reason}.")
    text = log.read_text()
    attempts = parse_text_log(text)
    blocks = _BLOCK_END_RE.split(text)[:-1]
    if len(blocks) != len(attempts):
        raise PublishedLogError(f"{log}: {len(attempts)} agents but {len(blocks)} answer keys; the log is not a run.")
    # The logs print each question stripped; five of the shipped questions end with a space.
    ids = {question.question.strip(): question.id for question in load_questions()}
    grouped: dict[str, list[tuple[LoggedAttempt, str]]] = {}
    for attempt, block in zip(attempts, blocks):
        if attempt.question not in ids:
            raise PublishedLogError(f"{log}: the question {attempt.question!r} is not one of the shipped 100.")
        grouped.setdefault(attempt.question, []).append((attempt, block))
    if not any(_ACTION_RE.search(block) for block in blocks):
        raise PublishedLogError(f"{log} holds no `Action:` line of the CoT agent: it is not a chain-of-thought log.")
    condition = condition_name(log)
    records = []
    for question, printed in grouped.items():
        played = _played(printed)
        first = played[0][0]
        answers: list[str] = []
        for index, (trial, attempt, block) in enumerate(played):
            success = attempt.status == "CORRECT"
            evidence, trajectory = _attempt(block, success, answers)
            later = played[index + 1][1].reflections if index + 1 < len(played) else []
            records.append(
                TrialRecord(
                    task_id=ids[question],
                    condition=condition,
                    trial=trial - first,
                    success=success,
                    end_reason=end_reason_of(evidence, success),
                    steps=len(trajectory),
                    task_text=question,  # as the log prints it
                    trajectory=trajectory,
                    memory=attempt.reflections,
                    reflection=later[-1] if later else None,
                    attempt_details=evidence,
                    actor_model=PUBLISHED_MODEL,
                    reflector_model=PUBLISHED_MODEL,
                    usage=Usage(),
                    actor_usage=Usage(),
                    reflector_usage=Usage(),
                    llm_calls=0,
                    cache_hits=0,
                    llm_latency_s=0.0,
                )
            )
            if evidence.answer is not None:
                answers.append(evidence.answer)
    return records


def write_published_run(log: Path, run_dir: Path) -> int:
    """Write a published log into `run_dir` as a finished run of this domain; the number of records written."""
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        what = "is not a directory" if not run_dir.is_dir() else "is not empty"
        raise PublishedLogError(
            f"{run_dir} {what}; the converted run would mix with what is there, so give an empty or new directory."
        )
    records = published_records(log)
    trial_log = TrialLog(run_dir)
    for record in sorted(records, key=lambda r: (r.trial, r.task_id)):
        trial_log.append(record)
    now = datetime.now(timezone.utc)
    config = {
        "env": {"name": "hotpotqa", "questions": sorted({r.task_id for r in records})},
        "conditions": [{"name": condition_name(log), "source": "published"}],
        "experiment": {"name": "published", "trials": max(r.trial for r in records) + 1},
        "published_log": str(log),
    }
    manifest = Manifest(
        config=config,
        package_versions={},
        git_commit=None,
        data_hashes={},
        started_at=now,
        ended_at=now,
        status="finished",
    )
    write_manifest(run_dir, manifest)
    return len(records)
