"""Importers for Reflexion's HotpotQA runs: the per-trial text logs and the `*_dicts*.joblib` agent states.

Text logs (`util.log_trial`): after each trial, every agent's last prompt without the few-shot
examples, grouped under `BEGIN CORRECT/INCORRECT/HALTED AGENTS` and closed by `Correct answer: <key>`.
Agents solved earlier are not rerun but are printed again, unchanged, in every later trial. The
memory appears in two layouts, one reflection a line either way (Reflexion strips newlines from
every reflection):
- bulleted (ReAct logs, later CoT logs): a line `Reflections:` followed by `- <reflection>` lines;
- inline (earlier CoT logs): `Reflections: <first>` then one reflection a line up to the answer key.

The question identifies an agent across trials: logs print no question index, and the order of
agents within a trial follows their status, not the dataset.
"""

from __future__ import annotations

import ast
import re
from itertools import takewhile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.published import PublishedTask
from harness.audit.safe_pickle import UnreadablePickleError, UnsafePickleError, load_restricted_pickle
from harness.domains.hotpotqa.judge import exact_match

DOMAIN = "hotpotqa"

Strategy = Literal["base", "reflexion", "last_trial", "last_trial_and_reflexion"]
Status = Literal["CORRECT", "INCORRECT", "HALTED"]

# Run folders are named after Reflexion's ReflexionStrategy values, sometimes with a model suffix
# (`reflexion_gpt-3.5-turbo`, `base_gpt4`); the longest name must be tried first.
_STRATEGY_FOLDER_RE = re.compile(r"(last_trial_and_reflexion|last_trial|reflexion|base)(?:_.*)?")
_TRIAL_RE = re.compile(r"^BEGIN TRIAL (\d+)$", re.MULTILINE)
_SECTION_RE = re.compile(r"^-+ BEGIN (CORRECT|INCORRECT|HALTED) AGENTS -+$", re.MULTILINE)
_BLOCK_END_RE = re.compile(r"^Correct answer:.*$", re.MULTILINE)
_QUESTION_RE = re.compile(r"Question: ?(.*)")
# Appended to the question line in ReAct logs when the agent has reflections.
_REFLECTION_HEADER = "You have attempted to answer"
_REFLECTIONS_MARK = "Reflections:"
# Between a section's last agent and the next `BEGIN TRIAL` line sit only blank and `####` lines.
_SECTION_TAIL_RE = re.compile(r"[\s#]*")


class LoggedAttempt(BaseModel):
    """One agent as one trial of a text log prints it."""

    model_config = ConfigDict(frozen=True)

    trial: int | None = Field(description="The log's 1-based trial number; None in logs without trial headers.")
    status: Status = Field(description="The section the agent is printed in.")
    question: str = Field(description="The question, without the reflection header some logs append to it.")
    reflections: list[str] = Field(description="The reflections in the agent's prompt, in order.")


def run_strategy(path: Path) -> Strategy:
    """The run's ReflexionStrategy, from the nearest enclosing folder named after one."""
    for folder in reversed(path.parent.parts):
        if match := _STRATEGY_FOLDER_RE.fullmatch(folder):
            return match.group(1)  # type: ignore[return-value]  # the pattern matches the strategies' names only
    raise ValueError(f"{path} is in no folder named after a Reflexion strategy (base, reflexion, last_trial, ...).")


_LAST_TRIAL_REASON = "a last_trial run: its memory is the previous attempt's trace, not reflections"


def text_log_skip_reason(path: Path) -> str | None:
    """Why a HotpotQA text file cannot be imported as reflections, or None when it can."""
    return _skip_reason(path, path.read_text())


def _skip_reason(path: Path, text: str) -> str | None:
    if not _SECTION_RE.search(text):
        return "no BEGIN ... AGENTS sections: hand-picked examples (the paper's appendix), not a run log"
    if not _BLOCK_END_RE.search(text):
        return "agents are not closed by `Correct answer:` lines, so they cannot be told apart"
    strategy = run_strategy(path)
    if strategy == "last_trial":
        return _LAST_TRIAL_REASON
    if strategy != "base" and _REFLECTIONS_MARK not in text and len(_TRIAL_RE.findall(text)) > 1:
        return f"a {strategy} run whose log prints no reflections (its logged prompt leaves the memory out)"
    return None


def _question(block: str) -> str:
    match = _QUESTION_RE.search(block)
    if match is None:
        raise ValueError(f"an agent block has no `Question:` line: {block[:200]!r}")
    return match.group(1).split(_REFLECTION_HEADER)[0].strip()


def _reflections(block: str) -> list[str]:
    lines = block.split("\n")
    marks = [i for i, line in enumerate(lines) if line.startswith(_REFLECTIONS_MARK)]
    if not marks:
        return []
    if len(marks) > 1:
        raise ValueError(f"an agent block lists reflections twice: {block[:200]!r}")
    first = lines[marks[0]][len(_REFLECTIONS_MARK) :]
    if not first.strip():
        bullets = takewhile(lambda line: line.startswith("- "), lines[marks[0] + 1 :])
        reflections = [bullet[2:] for bullet in bullets]
    else:
        # Inline layout: the block's last line is the answer key.
        reflections = [first, *lines[marks[0] + 1 : -1]]
    # Some logs print the same reflection with and without a trailing space in different trials.
    return [reflection.strip() for reflection in reflections]


def _blocks(section: str) -> list[str]:
    ends = list(_BLOCK_END_RE.finditer(section))
    tail = section[ends[-1].end() :] if ends else section
    if not _SECTION_TAIL_RE.fullmatch(tail):
        raise ValueError(f"text after a section's last answer key is not an agent: {tail[:200]!r}")
    starts = [0, *(end.end() for end in ends[:-1])]
    return [section[start : end.end()] for start, end in zip(starts, ends)]


def parse_text_log(text: str) -> list[LoggedAttempt]:
    """Every agent printed in a text log, in log order."""
    headers = list(_TRIAL_RE.finditer(text))
    chunks = (
        [
            (int(h.group(1)), text[h.end() : n.start() if n else len(text)])
            for h, n in zip(headers, [*headers[1:], None])
        ]
        if headers
        else [(None, text)]
    )
    attempts = []
    for trial, chunk in chunks:
        parts = _SECTION_RE.split(chunk)
        for status, section in zip(parts[1::2], parts[2::2]):
            attempts += [
                LoggedAttempt(trial=trial, status=status, question=_question(b), reflections=_reflections(b))
                for b in _blocks(section)
            ]
    return attempts


def _one_per_trial(question: str, attempts: list[LoggedAttempt]) -> list[LoggedAttempt]:
    """Drop an agent printed twice in one trial: ReAct's base log lists some under both INCORRECT and HALTED."""
    kept: dict[int | None, LoggedAttempt] = {}
    for attempt in attempts:
        earlier = kept.setdefault(attempt.trial, attempt)
        statuses = {earlier.status, attempt.status}
        if earlier.reflections != attempt.reflections or (len(statuses) > 1 and "CORRECT" in statuses):
            raise ValueError(f"question {question!r} is printed twice in trial {attempt.trial} with different content.")
    return list(kept.values())


def _memory(question: str, attempts: list[LoggedAttempt], strategy: Strategy) -> list[str]:
    if strategy != "last_trial_and_reflexion":
        # Reflections accumulate, so the agent's last print is the memory it ended with. (In the ReAct
        # logs a few earlier prints differ from later ones by a character, once by a dropped reflection.)
        return attempts[-1].reflections
    # last_trial_and_reflexion replaces the memory with the newest reflection every trial, so the
    # reflections written are the ones shown in each trial the agent ran: up to its first CORRECT one.
    ran = attempts[: next((i + 1 for i, a in enumerate(attempts) if a.status == "CORRECT"), len(attempts))]
    if [a.trial for a in ran] != list(range(1, len(ran) + 1)):
        raise ValueError(f"question {question!r} is missing from a trial; its replaced memory cannot be rebuilt.")
    return [reflection for attempt in ran for reflection in attempt.reflections]


def load_hotpotqa_log(path: Path, source: str | None = None) -> list[PublishedTask]:
    """Every question of one HotpotQA text log, in order of first appearance."""
    text = path.read_text()
    if reason := _skip_reason(path, text):
        raise ValueError(f"{path}: {reason}.")
    strategy = run_strategy(path)
    by_question: dict[str, list[LoggedAttempt]] = {}
    for attempt in parse_text_log(text):
        by_question.setdefault(attempt.question, []).append(attempt)
    trial_numbers = sorted({a.trial for attempts in by_question.values() for a in attempts if a.trial is not None})
    first_trial, last_trial = (trial_numbers[0], trial_numbers[-1]) if trial_numbers else (None, None)
    tasks = []
    for question, printed in by_question.items():
        attempts = _one_per_trial(question, printed)
        solved_in = next((a.trial for a in attempts if a.status == "CORRECT"), None)
        solved = any(a.status == "CORRECT" for a in attempts)
        # A log that starts mid-run (trials 6 to 7) cannot say when an agent already correct in its
        # first printed trial was solved; nor can a log without trial headers.
        trial_solved: int | None
        trials: int | None
        if solved_in is not None and (solved_in == 1 or solved_in != first_trial):
            trial_solved, trials = solved_in - 1, solved_in
        else:
            trial_solved, trials = None, None if solved else last_trial
        tasks.append(
            PublishedTask(
                domain=DOMAIN,
                source=source or path.name,
                task_id=question,
                reflections=_memory(question, attempts, strategy),
                solved=solved,
                trial_solved=trial_solved,
                trials=trials,
            )
        )
    return tasks


def _agent_dicts(path: Path) -> list[dict[str, str]]:
    agents = load_restricted_pickle(path)
    if not isinstance(agents, list) or not all(
        isinstance(a, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in a.items()) for a in agents
    ):
        raise ValueError(f"{path} is not a list of dicts of strings.")
    return agents


def dicts_skip_reason(path: Path) -> str | None:
    """Why a HotpotQA pickle cannot be imported (refused, unreadable, not agent dicts, last_trial), or None."""
    try:
        _agent_dicts(path)
    except (UnsafePickleError, UnreadablePickleError) as error:
        return error.detail
    except ValueError:
        return "not a list of dicts of strings"
    if run_strategy(path) == "last_trial":
        return _LAST_TRIAL_REASON
    return None


def load_hotpotqa_dicts(path: Path, source: str | None = None) -> list[PublishedTask]:
    """Every agent of one `*_dicts*.joblib` file (each agent's `__dict__` with values turned into strings)."""
    if run_strategy(path) == "last_trial":
        raise ValueError(f"{path}: {_LAST_TRIAL_REASON}.")
    tasks = []
    for agent in _agent_dicts(path):
        # `reflections` holds str(list): a Python literal, read without evaluating code.
        reflections = ast.literal_eval(agent["reflections"])
        if not isinstance(reflections, list) or not all(isinstance(r, str) for r in reflections):
            raise ValueError(f"{path}: `reflections` of {agent['question']!r} is not a list of strings.")
        # An agent halted before answering has no `answer`; correctness is Reflexion's own EM test.
        solved = exact_match(agent.get("answer", ""), agent["key"])
        # CoT agents (they carry `cot_examples`) count trials in `step_n`, and solved agents are not
        # rerun, so the count ends at the solving trial. ReAct agents count steps within the last trial.
        trials = int(agent["step_n"]) if "cot_examples" in agent else None
        tasks.append(
            PublishedTask(
                domain=DOMAIN,
                source=source or path.name,
                task_id=agent["question"].strip(),
                reflections=reflections,
                solved=solved,
                trial_solved=trials - 1 if trials is not None and solved else None,
                trials=trials,
            )
        )
    return tasks
