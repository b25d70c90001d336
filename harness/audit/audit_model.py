"""audit.json's model: one row per readable source, the skipped ones, and each measure's section; what audit.md
and audit.html are rendered from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.alfworld_mention import AlfworldMention
from harness.audit.paper_claims import ClaimCheck
from harness.audit.published_diagnosis import DiagnosedLog
from harness.audit.semantic_audit import SemanticAudit
from harness.audit.source_audit import SourceAudit
from harness.audit.task_identity import SourceIdentity
from harness.metrics.curves import ThresholdCurves


class SkippedSource(BaseModel):
    """A source no importer can read as reflections."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="Path relative to the logs root.")
    domain: str
    format: str = Field(description="What discovery found the files to be.")
    reason: str = Field(description="Why it cannot be imported.")


class AuditReport(BaseModel):
    """audit.json: one row per readable source, the skipped ones, and object mention in the ALFWorld runs."""

    model_config = ConfigDict(frozen=True)

    logs_dir: str = Field(description="The logs root, relative to the project when inside it.")
    env_to_game: str = Field(description="The env_N -> game mapping used for object mention.")
    sources: list[SourceAudit] = Field(description="Readable sources, by domain then name.")
    skipped: list[SkippedSource] = Field(description="Unreadable sources with their reason, by name.")
    object_mention: list[AlfworldMention] = Field(description="One entry per readable ALFWorld source.")
    identity: list[SourceIdentity] = Field(
        default_factory=list, description="Task identity of every HumanEval and HotpotQA source's reflections."
    )
    semantic: SemanticAudit | None = Field(None, description="Semantic RRR beside difflib's; None unless asked for.")
    paper: list[ClaimCheck] = Field(
        default_factory=list, description="The paper against its logs: each of its figures, recomputed, with a verdict."
    )
    diagnosis: list[DiagnosedLog] = Field(
        default_factory=list, description="Reflexion's own HotpotQA reflections scored by the diagnosis rules, per log."
    )
    threshold_curves: list[ThresholdCurves] = Field(
        default_factory=list, description="Per domain, its Table 1 log's frozen share as each threshold moves."
    )
