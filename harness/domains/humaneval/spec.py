"""HumanEval as the harness names it: its config, Reflexion's window of 1, its record model, where its rules live."""

from __future__ import annotations

from harness.domains.humaneval.config import HumanEvalEnvConfig
from harness.domains.spec import DomainSpec
from harness.records.humaneval import CodeAttempt
from harness.records.registry import Lazy

SPEC = DomainSpec(
    name="humaneval",
    env_config=HumanEvalEnvConfig,
    memory_window=1,  # Reflexion's programming loop reads only the last reflection
    builder=Lazy("harness.domains.humaneval.domain:build"),
    target=Lazy("harness.domains.humaneval.mention:task_target"),
    mentions=Lazy("harness.domains.humaneval.mention:task_mentions"),
    spans=Lazy("harness.domains.humaneval.mention:reflection_spans"),
    mention_note=Lazy("harness.domains.humaneval.mention:MENTION_NOTE"),
    identity=Lazy("harness.domains.humaneval.identity:record_identity"),
    identity_note=Lazy("harness.domains.humaneval.identity:IDENTITY_NOTE"),
    line_identity=Lazy("harness.domains.humaneval.identity:line_identity"),
    truth=Lazy("harness.domains.humaneval.diagnosis:record_truth"),
    claims=Lazy("harness.domains.humaneval.diagnosis:record_claims"),
    line_diagnosis=Lazy("harness.domains.humaneval.diagnosis:line_diagnosis"),
    details=CodeAttempt,
)
