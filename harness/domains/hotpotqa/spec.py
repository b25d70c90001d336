"""HotpotQA as the harness names it: its config, a window that keeps every reflection, its record model, where its
rules live."""

from __future__ import annotations

from harness.domains.hotpotqa.config import PROTOCOL_MEMORY_WINDOW, HotpotQAEnvConfig
from harness.domains.spec import DomainSpec
from harness.records.hotpotqa import QuestionAttempt
from harness.records.registry import Lazy

SPEC = DomainSpec(
    name="hotpotqa",
    env_config=HotpotQAEnvConfig,
    memory_window=PROTOCOL_MEMORY_WINDOW,
    builder=Lazy("harness.domains.hotpotqa.domain:build"),
    target=Lazy("harness.domains.hotpotqa.mention:task_target"),
    mentions=Lazy("harness.domains.hotpotqa.mention:task_mentions"),
    spans=Lazy("harness.domains.hotpotqa.mention:reflection_spans"),
    mention_note=Lazy("harness.domains.hotpotqa.mention:MENTION_NOTE"),
    identity=Lazy("harness.domains.hotpotqa.identity:record_identity"),
    identity_note=Lazy("harness.domains.hotpotqa.identity:IDENTITY_NOTE"),
    line_identity=Lazy("harness.domains.hotpotqa.identity:line_identity"),
    truth=Lazy("harness.domains.hotpotqa.diagnosis_truth:record_truth"),
    claims=Lazy("harness.domains.hotpotqa.diagnosis_claims:record_claims"),
    line_diagnosis=Lazy("harness.domains.hotpotqa.diagnosis_claims:line_diagnosis"),
    details=QuestionAttempt,
)
