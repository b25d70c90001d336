"""diagnosis.jsonl: each failed trial's ground truth and what its reflection (and each heuristic row) claims.

Written into a run directory by the diagnosis stage at the run's end (`metrics.diagnosis=true`) or by
`reflexion-diagnosis RUN_DIR` for a run played without it, and by the re-reflection bank for its own reflections;
the report only reads it. One line per failed trial, keyed like the trial records (and, in the bank, by the stored
trajectory the reflection was written about), appended durably, so a stage that was killed resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.log import DurableLog
from harness.records.step import Step

DIAGNOSIS_FILE = "diagnosis.jsonl"

DiagnosisKey = tuple[str, str, int, int, str]
"""(task_id, condition, trial, repeat, trajectory): a trial record's key and the trajectory's id ("" in a run)."""


class TrialDiagnosis(BaseModel):
    """One failed trial with a reflection: where it was lost, what the reflection claims, what each row claims."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    condition: str = Field(description="The trial's condition (the bank: the reflection source that wrote it).")
    trial: int = Field(ge=0)
    repeat: int = Field(0, ge=0)
    trajectory: str = Field(
        "", description="The bank: the stored trajectory's id (source run, task, condition, trial, repeat); '' in a run."
    )
    trajectory_sha256: str = Field(
        description="SHA-256 of the trial's steps: equal hashes, the same trajectory (shared first trials pair)."
    )
    truth: GroundTruth = Field(description="Where and why the trial was lost, by the domain's ground-truth rule.")
    claims: ReflectionClaims | None = Field(
        description="What the reflection claims, by the domain's claim rule; None when the trial has no reflection."
    )
    rows: dict[str, ReflectionClaims] = Field(
        default_factory=dict,
        description="The heuristic rows' claims about the same trial (harness.metrics.diagnosis.rows), by row name.",
    )
    next_success: bool | None = Field(
        None, description="Whether the same chain's next trial was won; None when there is none (the efficacy link)."
    )

    @property
    def key(self) -> DiagnosisKey:
        return (self.task_id, self.condition, self.trial, self.repeat, self.trajectory)


def trajectory_sha256(steps: Sequence[Step]) -> str:
    """The hash of a trajectory's steps (action and observation, in order)."""
    canonical = json.dumps([[step.action, step.observation] for step in steps], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def diagnosis_log(run_dir: Path) -> DurableLog[TrialDiagnosis]:
    """RUN_DIR/diagnosis.jsonl as a durable log, each key once."""
    return DurableLog(
        Path(run_dir) / DIAGNOSIS_FILE,
        TrialDiagnosis,
        what="diagnosis record",
        key=lambda record: record.key,
        name_key=lambda key: f"task {key[0]} condition {key[1]} trial {key[2]} repeat {key[3]}"
        + (f" trajectory {key[4]}" if key[4] else ""),
    )


def read_diagnosis(run_dir: Path) -> list[TrialDiagnosis] | None:
    """The run's diagnosis records, in file order; None when it has no diagnosis.jsonl."""
    if not (Path(run_dir) / DIAGNOSIS_FILE).is_file():
        return None
    return diagnosis_log(run_dir).read()
