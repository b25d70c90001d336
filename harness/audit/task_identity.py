"""Task identity of the published HumanEval and HotpotQA reflections, each read against its own problem or question.

The logs keep neither a HumanEval run's feedback nor the answer a HotpotQA reflection was written after (the agent
dicts keep only the last trial), so every reflection is labelled from its task alone, as the rules allow. A HumanEval
task is named `HumanEval/<n>` (OpenAI's rows) or `HumanEval_<n>_<entry point>` (MultiPL-E's Rust rows, whose snake_case
names are the Python ones); a HotpotQA task is named by its question, matched to the shipped 100 after stripping.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.published import PublishedTask
from harness.audit.task_rrr import TaskRRR
from harness.domains.hotpotqa.questions import load_questions
from harness.domains.registry import line_identity
from harness.metrics.identity import IdentityCounts, identity_counts
from harness.records.identity import ReflectionIdentity

_HUMANEVAL_ID_RE = re.compile(r"HumanEval[/_](\d+)(?:_\w+)?")
Labeller = Callable[[str, str], ReflectionIdentity]


class SourceIdentity(BaseModel):
    """One published run's reflections by task-identity label, over all its tasks and over its frozen ones."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="Path relative to the logs root.")
    domain: str
    rule: str = Field(description="The identity rule and version that labelled them, e.g. 'hotpotqa/2'.")
    tasks_labelled: int = Field(ge=0, description="Tasks with reflections whose problem or question is known.")
    tasks_unknown: int = Field(ge=0, description="Tasks with reflections whose problem or question is not shipped.")
    identity: IdentityCounts = Field(description="Every reflection of the labelled tasks.")
    frozen_identity: IdentityCounts = Field(description="The reflections of the labelled tasks that are frozen.")


@cache
def _question_ids() -> dict[str, str]:
    # The logs print each question stripped; five of the shipped questions end with a space.
    return {question.question.strip(): question.id for question in load_questions()}


def _humaneval_task(task_id: str) -> str | None:
    match = _HUMANEVAL_ID_RE.fullmatch(task_id)
    return f"HumanEval/{match.group(1)}" if match else None


# The logs' families whose tasks the harness ships: the harness domain, the log's task id -> the shipped task's, and
# one shipped task of it.
_SHIPPED: dict[str, tuple[str, Callable[[str], str | None], Callable[[], str]]] = {
    "hotpotqa": ("hotpotqa", lambda task: _question_ids().get(task.strip()), lambda: load_questions()[0].id),
    "humaneval": ("humaneval", _humaneval_task, lambda: "HumanEval/0"),
}


def _rule(domain: str) -> tuple[Callable[[str], str | None], Labeller] | None:
    """How a log family's task ids map to the shipped ones, and the harness domain's identity rule (its line rule, as
    `reflexion-identity` reads a line); None for a family without one here. `humaneval-rs` is the
    humaneval family: its rows are MultiPL-E's translations of the same problems."""
    shipped = _SHIPPED.get(domain.split("-", 1)[0])
    if shipped is None:
        return None
    name, to_task, _ = shipped
    return to_task, lambda text, task: line_identity({"domain": name, "task": task, "text": text})


def _version(domain: str) -> str:
    """The rule and version that labels a family's reflections, as its labels name it (here, an empty text's on one
    of its shipped tasks)."""
    name, _, first = _SHIPPED[domain.split("-", 1)[0]]
    return line_identity({"domain": name, "task": first(), "text": ""}).rule


def task_labeller(domain: str) -> Callable[[str, str], ReflectionIdentity | None] | None:
    """(the log's task id, a reflection) -> its identity, None for a task that is not shipped; None for a domain
    without a rule here (ALFWorld's needs the env-to-game map)."""
    rule = _rule(domain)
    if rule is None:
        return None
    to_task, label = rule

    def labelled(task_id: str, text: str) -> ReflectionIdentity | None:
        own = to_task(task_id)
        return None if own is None else label(text, own)

    return labelled


def source_identity(
    source: str, domain: str, tasks: Sequence[PublishedTask], rated: Sequence[TaskRRR],
    known: dict[tuple[str, str, str], ReflectionIdentity],
) -> SourceIdentity | None:  # fmt: skip
    """The labels of one HumanEval or HotpotQA run; None for other domains. `known` holds labels already read (the
    same reflections appear in several published files) and gains these."""
    rule = _rule(domain)
    if rule is None:
        return None
    to_task, label = rule
    frozen = {r.task_id for r in rated if r.frozen}
    labelled, tasks_labelled, unknown = [], 0, 0
    for task in (t for t in tasks if t.reflections):
        own = to_task(task.task_id)
        if own is None:
            unknown += 1
            continue
        tasks_labelled += 1
        for text in task.reflections:
            key = (domain.split("-", 1)[0], own, text)
            if key not in known:
                known[key] = label(text, own)
            labelled.append((task.task_id in frozen, known[key]))
    return SourceIdentity(
        source=source, domain=domain, rule=_version(domain),
        tasks_labelled=tasks_labelled, tasks_unknown=unknown,
        identity=identity_counts(i for _, i in labelled),
        frozen_identity=identity_counts(i for in_frozen, i in labelled if in_frozen),
    )  # fmt: skip
