"""Trial records built by hand for metric and selection tests."""

from __future__ import annotations

from harness.llm import Usage
from harness.records import TrialRecord
from harness.records.details import ReflectionDetails
from harness.records.step import Step


def make_record(
    trial: int,
    reflection: str | None,
    success: bool = False,
    task: str = "a/b",
    condition: str = "self_diagnosis",
    details: ReflectionDetails | None = None,
    trajectory: list[Step] | None = None,
) -> TrialRecord:
    return TrialRecord(
        task_id=task,
        condition=condition,
        trial=trial,
        success=success,
        end_reason="won" if success else "exhausted",
        steps=1,
        task_text="put a mug in desk.",
        trajectory=trajectory or [],
        memory=[],
        reflection=reflection,
        reflection_details=details,
        actor_model="m",
        reflector_model="m",
        usage=Usage(prompt_tokens=1, completion_tokens=1),
        actor_usage=Usage(prompt_tokens=1, completion_tokens=1),
        reflector_usage=Usage(),
        llm_calls=1,
        cache_hits=0,
        llm_latency_s=0.0,
    )
