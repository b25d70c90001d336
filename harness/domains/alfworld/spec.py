"""ALFWorld as the harness names it: its config, Reflexion's window of 3, and where its rules live."""

from __future__ import annotations

from harness.domains.alfworld.config import AlfworldEnvConfig
from harness.domains.spec import DomainSpec
from harness.records.registry import Lazy

SPEC = DomainSpec(
    name="alfworld",
    env_config=AlfworldEnvConfig,
    memory_window=3,  # Reflexion's ALFWorld actor reads the last 3 reflections
    builder=Lazy("harness.domains.alfworld.domain:build"),
    target=Lazy("harness.domains.alfworld.target:target_object"),
    mentions=Lazy("harness.domains.alfworld.target:task_mentions"),
    spans=Lazy("harness.domains.alfworld.target:reflection_spans"),
    mention_note=Lazy("harness.domains.alfworld.target:MENTION_NOTE"),
    identity=Lazy("harness.domains.alfworld.identity:record_identity"),
    identity_note=Lazy("harness.domains.alfworld.identity:IDENTITY_NOTE"),
    line_identity=Lazy("harness.domains.alfworld.identity:line_identity"),
    truth=Lazy("harness.domains.alfworld.diagnosis_truth:record_truth"),
    claims=Lazy("harness.domains.alfworld.diagnosis_claims:record_claims"),
    line_diagnosis=Lazy("harness.domains.alfworld.diagnosis_line:line_diagnosis"),
)
