"""Whether a reflection ended where a reflection ends: cut at the token limit, or run on into an imagined episode.

A reflector without stop sequences (Reflexion's had none; a local server's defaults add none) may go on past its
reflection and write what its prompt shows next: the environment's lines, a new task, the memory listing's next
`Trial #`, the next few-shot example. That text reaches memory with the reflection. The markers are the prompts'
own layout (prompts/ and the prompt code in harness/domains/*/), so the rule reads no domain: a reflection's
text and, when the record has it, its reflector's finish_reason. Checked against reflections labelled by reading
in tests/fixtures/run_on/.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field

from harness.records import TrialRecord

# ALFWorld's admissible verbs: the actor's lines are "> " and one of them.
_VERBS = r"(?:go to|take|put|open|close|toggle|clean|heat|cool|use|examine|look|inventory)\b|think:"
# Whole lines of the prompts' layout. A line is matched from its start, leading spaces aside.
_LINES = [
    ("action", rf">\s?(?:{_VERBS})"),
    ("observation", r"(?:On|In) the [a-z]+ \d+, you see\b"),
    ("observation", r"The [a-z]+ \d+ is (?:open|closed)\."),
    ("observation", r"You (?:open|close|pick up|put|heat|cool|clean|turn on|turn off) the [a-z]+ \d+"),
    ("observation", r"You arrive at loc \d+"),
    ("observation", r"Nothing happens\."),
    ("observation", r"O[Kk]\.[ \t]*$"),
    ("episode", r"You are in the middle of a room"),
    ("episode", r"Looking quickly around you"),
    ("episode", r"Your task is to:"),
    ("prompt", r"Interact with a household to solve a task"),
    ("prompt", r"Here are (?:two|some) examples"),
    ("prompt", r"You will be given the history of a past experience"),
    ("prompt", r"Your memory for the task below:"),
    ("prompt", r"Plans from past attempts:"),
    ("prompt", r"You have attempted to answer following question before"),
    ("trial", r"STATUS:"),
    ("trial", r"New plan:"),
    ("trial", r"Trial #?\d+:"),
    ("code turn", r"\[(?:function impl|unit test results|self-reflection|improved impl|previous impl|reflection on "
     r"previous impl|unit test results from previous impl|func signature|unit tests)\]:?"),
    ("code turn", r"Example \d+:"),
    ("code turn", r"Tests (?:passing|failing|failed):"),
    ("code turn", r"func signature:"),
]  # fmt: skip
# Labels that also count after a sentence's end: Reflexion's HotpotQA keeps a reflection with its newlines removed
# (format_step), so a run-on trial follows the reflection's last full stop on the same line.
_LABELS = [
    ("question", r"Previous trial:"),
    ("question", r"(?:Relevant )?Context:"),
    ("question", r"Question:"),
    ("question", r"Thought(?: \d+)?:"),
    ("question", r"Action(?: \d+)?:"),
    ("question", r"Observation(?: \d+)?:"),
    ("question", r"Reflections?:"),
    ("prompt", r"\(END OF EXAMPLES\)"),
]
_TEMPLATE = r"FAILED STEP|ROOT CAUSE|NEW PLAN"
_LINE_START = r"(?:^|(?<=\n))[ \t]*"
_AFTER_SENTENCE = r"(?:^|(?<=[\n.!?\]\)\"'`]))[ \t]*"
_MARKERS = re.compile(
    "|".join(
        [f"{_LINE_START}(?P<l{i}>{pattern})" for i, (_, pattern) in enumerate(_LINES)]
        + [f"{_AFTER_SENTENCE}(?P<s{i}>{pattern})" for i, (_, pattern) in enumerate(_LABELS)]
        + [f"{_AFTER_SENTENCE}(?P<template>(?:{_TEMPLATE}):)"]
    ),
    re.MULTILINE,
)


class ReflectionEnd(BaseModel):
    """How one reflection ended."""

    model_config = ConfigDict(frozen=True)

    hit_limit: bool | None = Field(description="The reflector stopped at the token limit; None when unrecorded.")
    ran_on: bool = Field(description="The text goes on past the reflection into the prompt's layout.")
    kind: str | None = Field(None, description="What it ran on into: action, observation, episode, trial, ...")
    marker: str | None = Field(None, description="The text that starts the run-on, as written.")
    at: int | None = Field(None, ge=0, description="Where in the reflection the run-on starts.")


def _kind(match: re.Match[str]) -> str:
    name = match.lastgroup or ""
    if name == "template":
        return "template answer"
    kinds = _LINES if name.startswith("l") else _LABELS
    return kinds[int(name[1:])][0]


# A report measures the same reflections more than once (metrics, summary, page), and a scan is about half a millisecond.
@lru_cache(maxsize=1 << 14)
def run_on_at(text: str) -> tuple[str, str, int] | None:
    """(kind, marker, offset) of the first place `text` runs on past its reflection, or None.

    A marker counts only after some reflection text: one that opens the answer ("Trial #1: I was stuck...", or
    the template's quoted "> go to desk 1" under keep_raw) has nothing before it to run on from. A template label
    counts when it comes a second time or after NEW PLAN, the last part: the model is answering again.
    """
    said = False
    labels: set[str] = set()
    position = 0
    for match in _MARKERS.finditer(text):
        name = match.lastgroup or ""
        start, end = match.span(name)
        said = said or bool(text[position:start].strip())
        position = end
        if name == "template":
            label = match.group(name)[:-1]
            repeated = label in labels or "NEW PLAN" in labels
            labels.add(label)
            if repeated and said:
                return "template answer", match.group(name), start
            continue
        if said:
            return _kind(match), match.group(name), start
    return None


def reflection_end(reflection: str | None, finish_reason: str | None) -> ReflectionEnd:
    """The verdict on one reflection's text (None: nothing reached memory) and its reflector's finish_reason."""
    found = run_on_at(reflection) if reflection else None
    kind, marker, at = found if found else (None, None, None)
    return ReflectionEnd(
        hit_limit=None if finish_reason is None else finish_reason == "length",
        ran_on=found is not None,
        kind=kind,
        marker=marker,
        at=at,
    )


def reflector_finish(record: TrialRecord) -> str | None:
    """The record's reflector finish_reason: "length" when any reflector call said so, else the last one said;
    None without a reflector call or when none was recorded (records before schema 5, a cache without it)."""
    said = [call.finish_reason for call in record.calls if call.role == "reflector" and call.finish_reason]
    return "length" if "length" in said else (said[-1] if said else None)


def record_end(record: TrialRecord) -> ReflectionEnd | None:
    """How the record's reflection ended; None when the trial asked no reflector and kept no reflection."""
    asked = any(call.role == "reflector" for call in record.calls)
    if record.reflection is None and not asked:
        return None
    return reflection_end(record.reflection, reflector_finish(record))


class RunOnCounts(BaseModel):
    """One condition's reflections by how they ended."""

    model_config = ConfigDict(frozen=True)

    reflections: int = Field(0, ge=0, description="Trials whose reflector answered or that kept a reflection.")
    hit_limit: int = Field(0, ge=0, description="Of them, those whose reflector stopped at the token limit.")
    ran_on: int = Field(0, ge=0, description="Of them, those whose text ran on past the reflection into memory.")
    limit_unrecorded: int = Field(
        0, ge=0, description="Of them, those without a recorded finish_reason (the limit is unknown for them)."
    )

    @property
    def any(self) -> bool:
        return bool(self.hit_limit or self.ran_on)

    def __add__(self, other: RunOnCounts) -> RunOnCounts:
        return RunOnCounts(
            reflections=self.reflections + other.reflections,
            hit_limit=self.hit_limit + other.hit_limit,
            ran_on=self.ran_on + other.ran_on,
            limit_unrecorded=self.limit_unrecorded + other.limit_unrecorded,
        )


def run_on_counts(records: Iterable[TrialRecord]) -> RunOnCounts:
    ends = [end for record in records if (end := record_end(record)) is not None]
    return RunOnCounts(
        reflections=len(ends),
        hit_limit=sum(end.hit_limit is True for end in ends),
        ran_on=sum(end.ran_on for end in ends),
        limit_unrecorded=sum(end.hit_limit is None for end in ends),
    )


FIX = (
    "set model.reflector_stop to the lines that end a reflection and give a local server a context of at least "
    "8192 tokens (llama.cpp: --n_ctx 8192); see docs/local-servers.md"
)


WARNING = "WARNING:"


def run_on_warning(condition: str, counts: RunOnCounts) -> str | None:
    """The warning's sentence, naming the condition, its counts and the fix (summary.md, report.md and the run log
    put it behind their WARNING); None when the condition has neither."""
    if not counts.any:
        return None
    return (
        f"{condition}: {counts.hit_limit} of {counts.reflections} reflection(s) hit the token limit and "
        f"{counts.ran_on} ran on past their end into memory; {FIX}."
    )
