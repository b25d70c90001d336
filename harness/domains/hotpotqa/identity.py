"""Which articles a HotpotQA reflection is about: the supporting ones (the mention rule), only others, or none.

The question's object is its supporting articles (`mention`); a reflection that names one of them (normalized rule)
is on_task. One that names none of them but another article of the question's ten (a distractor, which the CoT agent
never read) is off_task. One that names no article of the question at all is vacuous: generic advice ("I should read
the context more carefully"), empty or cut off.
"""

from __future__ import annotations

from harness.domains.hotpotqa.mention import article_name, article_spans, names_article
from harness.domains.hotpotqa.questions import questions_by_id
from harness.records import TrialRecord
from harness.records.identity import IdentityEvidence, ReflectionIdentity

RULE = "hotpotqa/1"
IDENTITY_NOTE = (
    "HotpotQA task identity: on_task names a supporting article (normalized rule); off_task names only other articles "
    "of the question; vacuous names no article of it."
)


def _named(text: str, titles: list[str], means: str) -> list[IdentityEvidence]:
    found = []
    for title in titles:
        if names_article(text, title, "normalized"):
            span = next(s for s in article_spans(text, [title]) if s.variant == "normalized")
            found.append(
                IdentityEvidence(
                    kind="article", text=text[span.start : span.end], start=span.start, end=span.end,
                    means=f"{article_name(title)} ({means})", counts=True,
                )
            )  # fmt: skip
    return found


def reflection_identity(text: str, question_id: str) -> ReflectionIdentity:
    """The label of one reflection on the shipped question `question_id`."""
    question = questions_by_id().get(question_id)
    if question is None:
        raise ValueError(f"{question_id!r} is not a shipped HotpotQA question id.")
    supporting = question.supporting_titles()
    others = [title for title in question.context.title if title not in supporting]
    on = _named(text, supporting, "supporting")
    off = _named(text, others, "not supporting")
    if on:
        label, evidence = "on_task", on + [e.model_copy(update={"counts": False}) for e in off]
    elif off:
        label, evidence = "off_task", off
    else:
        label, evidence = "vacuous", []
    return ReflectionIdentity(label=label, rule=RULE, evidence=sorted(evidence, key=lambda e: (e.start, e.end)))


def record_identity(record: TrialRecord) -> ReflectionIdentity | None:
    return None if record.reflection is None else reflection_identity(record.reflection, record.task_id)


def line_identity(item: dict[str, object]) -> ReflectionIdentity:
    """`python -m harness.metrics.identity`'s line {"task": "<question id>", "text"}."""
    return reflection_identity(str(item["text"]), str(item.get("task")))
