"""The failure signals of a HotpotQA trial that a parser finds without the answer key.

An action that does not parse as `Type[argument]`, an action that is not Finish (either way the trial gave no
answer), an answer already given in an earlier trial, and an answer that occurs nowhere in the context (compared
after Reflexion's answer normalization, as whole words). None of them needs the key; the verdict itself is already
in the scratchpad the reflector reads.
"""

from __future__ import annotations

import re

from harness.domains.hotpotqa.agent import FINISH
from harness.domains.hotpotqa.judge import normalize_answer
from harness.records.hotpotqa import QuestionAttempt

ACTION_FORMAT = "Type[argument]"
"""How an action is written, as the signal names it (the identity rule reads its Type as a prompt word)."""


def occurs_in(answer: str, context: str) -> bool:
    """Whether the normalized answer occurs in the normalized context as whole words."""
    wanted = normalize_answer(answer)
    return bool(wanted) and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", normalize_answer(context)) is not None


def failure_signals(attempt: QuestionAttempt, context: str) -> list[str]:
    """One sentence per signal, in the order above; [] when the parser finds none."""
    if attempt.action is None:
        return ["The trial ended before an action was given."]
    if attempt.action_type is None:
        return [f"The action `{attempt.action}` does not parse as {ACTION_FORMAT}, so no answer was given."]
    if attempt.action_type != FINISH or attempt.answer is None:
        return [f"The action `{attempt.action}` is not Finish[answer], the only action there is: no answer was given."]
    lines = []
    answer = normalize_answer(attempt.answer)
    if any(normalize_answer(earlier) == answer for earlier in attempt.earlier_answers):
        lines.append(f"The answer `{attempt.answer}` repeats an answer given in an earlier trial.")
    if not occurs_in(attempt.answer, context):
        lines.append(f"The answer `{attempt.answer}` does not occur in the context.")
    return lines


def render(lines: list[str]) -> str:
    """The signals as the prompt lists them, one `- ` line each."""
    return "\n".join(f"- {line}" for line in lines)
