"""Reflexion's own HotpotQA reflections diagnosed: each published CoT-with-context log that prints reflections, read
into records (`hotpotqa_runs.published_records`), every failed trial with a reflection scored by HotpotQA's diagnosis
rules (`harness.domains.hotpotqa.diagnosis_truth`, `diagnosis_claims`).

The records keep each trial's question id, its last Thought and Action and the log's verdict, so every category
applies (the thought is kept: the hop categories too, not only the answer-based ones). The no-context logs are left
out: their agents read no paragraphs, so a name "not in the context" is one they could never have read there, and
the rules' grounding (the answer or a name found in the context) does not hold for them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.hotpotqa_runs import PublishedLogError, published_records
from harness.domains.diagnosis_hit import names_the_loss
from harness.domains.hotpotqa.diagnosis_claims import RULE as CLAIMS_RULE
from harness.domains.hotpotqa.diagnosis_claims import reflection_claims
from harness.domains.hotpotqa.diagnosis_trial import from_record
from harness.domains.hotpotqa.diagnosis_truth import RULE as TRUTH_RULE
from harness.domains.hotpotqa.diagnosis_truth import question_truth

COT_CONTEXT = "hotpotqa_runs/root/CoT/context/"
OTHER_COMMITS = "_other_commits/"


class DiagnosedLog(BaseModel):
    """One published HotpotQA CoT log's reflections, each against its failed trial's ground truth."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="The log, relative to the logs root.")
    reflections: int = Field(description="Failed trials with the reflection written after them.")
    tasks: int = Field(description="Questions those trials belong to.")
    categories: dict[str, int] = Field(description="Where the trials were lost, by ground-truth category.")
    hits: int = Field(description="Reflections naming where their trial was lost (the rubrics' hit).")
    task_mean_hit: float | None = Field(description="The hit share per question, averaged over questions.")
    cause_named: int = Field(description="Reflections naming some cause category.")
    cause_agrees: int = Field(description="Reflections naming their trial's own category.")
    confabulated: int = Field(description="Reflections stating a name, number or quote their trial does not hold.")
    truth_rule: str
    claims_rule: str


def diagnose_log(path: Path, name: str) -> DiagnosedLog | None:
    """One log diagnosed; None when it prints no reflections of failed trials (or is no CoT log)."""
    try:
        records = published_records(path)
    except PublishedLogError:
        return None
    failed = [record for record in records if not record.success and record.reflection]
    if not failed:
        return None
    categories: Counter[str] = Counter()
    hits, named, agrees, confabulated = 0, 0, 0, 0
    per_task: dict[str, list[bool]] = {}
    for record in failed:
        trial = from_record(record)
        truth, claims = question_truth(trial), reflection_claims(trial, record.reflection or "")
        hit = bool(names_the_loss(truth, claims))
        categories[truth.category or "unscored"] += 1
        hits += hit
        named += claims.cause is not None
        agrees += claims.cause is not None and claims.cause == truth.category
        confabulated += claims.confabulated
        per_task.setdefault(record.task_id, []).append(hit)
    means = [sum(found) / len(found) for found in per_task.values()]
    return DiagnosedLog(
        source=name,
        reflections=len(failed),
        tasks=len(per_task),
        categories=dict(categories.most_common()),
        hits=hits,
        task_mean_hit=sum(means) / len(means) if means else None,
        cause_named=named,
        cause_agrees=agrees,
        confabulated=confabulated,
        truth_rule=TRUTH_RULE,
        claims_rule=CLAIMS_RULE,
    )


def diagnose_published(logs_dir: Path) -> list[DiagnosedLog]:
    """Every CoT-with-context text log under `logs_dir` that prints reflections, diagnosed: the main commit's first
    (the published run), then those kept from other commits, each by name."""
    found = []
    for path in sorted(Path(logs_dir).rglob("*.txt")):
        name = path.relative_to(logs_dir).as_posix()
        if COT_CONTEXT in name and (diagnosed := diagnose_log(path, name)) is not None:
            found.append(diagnosed)
    return sorted(found, key=lambda log: (log.source.startswith(OTHER_COMMITS), log.source))
