"""The paper's figures as data, and what checking one against the logs gives: the claims file's model, each check's
verdict, what the audit hands the checks (`paper.py`), and the checks for a terminal."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.published import PublishedTask
from harness.audit.published_diagnosis import DiagnosedLog
from harness.audit.source_audit import SourceAudit
from harness.audit.task_identity import SourceIdentity
from harness.audit.task_rrr import TaskRRR

CLAIMS_FILE = Path(__file__).resolve().parents[2] / "data" / "paper" / "honest_lying_claims.json"
ALFWORLD_RUN = "alfworld_runs/root/reflexion_run_logs"
WEBSHOP_RUN = "webshop_runs/reflexion_run_logs_1"
HOTPOTQA_RUNS = "hotpotqa_runs/"
HUMANEVAL_RUN = "programming_runs/root/reflexion_humaneval_py_pass_at_1/reflexion_humaneval_py_pass_at_1.jsonl"

Verdict = Literal["agrees", "differs", "cannot be checked"]


class PaperClaim(BaseModel):
    """One figure of the paper, with the sentence it comes from."""

    model_config = ConfigDict(frozen=True)

    id: str
    topic: str
    figure: str = Field(description="The figure as the paper states it.")
    source: str = Field(description="Key of `sources`: where the text below was read.")
    text: str = Field(description="The sentence or table row, verbatim.")
    restated: list[str] = Field(
        default_factory=list,
        description="Where the paper states the same figure again, verbatim: one figure is one claim with one verdict.",
    )
    values: dict[str, Any] = Field(description="The figure's numbers, as printed, for the check.")


class PaperClaims(BaseModel):
    model_config = ConfigDict(frozen=True)

    paper: str
    sources: dict[str, str]
    claims: list[PaperClaim]


class ClaimCheck(BaseModel):
    """A figure of the paper beside the same figure from the logs."""

    model_config = ConfigDict(frozen=True)

    claim: PaperClaim
    logs: str = Field(description="The figure recomputed from the published logs.")
    verdict: Verdict
    reason: str = Field(description="What the harness found that explains the verdict.")


class LogsEvidence(BaseModel):
    """What the audit read, by source name: the rows, the tasks, their RRR, the HumanEval and HotpotQA runs' task
    identity; the env-to-game map; and the published HotpotQA reflections diagnosed."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    rows: dict[str, SourceAudit]
    tasks: dict[str, list[PublishedTask]]
    rated: dict[str, list[TaskRRR]]
    env_to_game: dict[str, str]
    env_to_game_name: str
    identity: dict[str, SourceIdentity] = Field(default_factory=dict)
    diagnosis: list[DiagnosedLog] = Field(default_factory=list)


def load_claims(path: Path = CLAIMS_FILE) -> PaperClaims:
    return PaperClaims.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


def verdict_counts(checks: Sequence[ClaimCheck]) -> dict[Verdict, int]:
    counts: dict[Verdict, int] = {"agrees": 0, "differs": 0, "cannot be checked": 0}
    for check in checks:
        counts[check.verdict] += 1
    return counts


def paper_lines(checks: Sequence[ClaimCheck]) -> str:
    """The checks for a terminal: a heading, then one verdict a figure with the paper's figure, the logs' and why."""
    counts = verdict_counts(checks)
    lines = [
        f"The paper against its logs: {counts['agrees']} agree, {counts['differs']} differ, "
        f"{counts['cannot be checked']} cannot be checked"
    ]
    for check in checks:
        lines.append(f"- [{check.verdict}] {check.claim.topic}: paper {check.claim.figure}; logs {check.logs}")
        lines.append(f"    why: {check.reason}")
    return "\n".join(lines)
