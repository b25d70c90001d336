"""The re-reflection bank's records: the stored failed trajectories, each source's reflection on each, and each
trajectory's ground truth, each a durable JSON-lines file in the bank's run directory (a killed bank resumes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.records.log import DurableLog
from harness.records.trial import TrialRecord

ITEMS_FILE = "bank_items.jsonl"
REFLECTIONS_FILE = "bank.jsonl"
TRUTH_FILE = "truth.jsonl"
TABLE_FILE = "diagnosis.md"


class BankTrajectory(BaseModel):
    """One stored failed trajectory as every source reads it: the trial's record, unchanged, and what the reflector
    read about it when it was played (its scenario, seed and step budget)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="<domain>/<source run's folder>/<task>/<condition>/<trial>/<repeat>.")
    domain: str
    source_run: str = Field(description="The run directory it was taken from, as the bank's settings named it.")
    env: dict[str, Any] = Field(description="That run's env settings (its manifest's), to build the domain's hooks.")
    record: TrialRecord = Field(description="The failed trial, as that run recorded it.")
    scenario: str = Field(description="The text the reflector reads (ALFWorld: the episode log from the reset on).")
    seed: int = Field(description="The trial's sampling seed in that run (its requests share the run's cache keys).")
    max_steps: int = Field(ge=1, description="The domain's step budget in that run.")


class BankReflection(BaseModel):
    """One source's reflection on one stored trajectory: the trial's record with this reflection, its evidence, its
    condition (the source's name), the reflector's calls and usage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trajectory: str = Field(description="The BankTrajectory's id.")
    record: TrialRecord

    @property
    def key(self) -> tuple[str, str]:
        return (self.trajectory, self.record.condition)


class TrajectoryTruth(BaseModel):
    """One trajectory's ground truth and the heuristic rows' claims, computed once for every source's reflection."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trajectory: str
    trajectory_sha256: str = Field(description="Of its steps: a stored truth is used only for the same steps.")
    truth: GroundTruth
    rows: dict[str, ReflectionClaims] = Field(default_factory=dict)


def items_log(path: Path) -> DurableLog[BankTrajectory]:
    return DurableLog(path, BankTrajectory, what="bank trajectory", key=lambda item: item.id)


def reflections_log(run_dir: Path) -> DurableLog[BankReflection]:
    return DurableLog(
        Path(run_dir) / REFLECTIONS_FILE,
        BankReflection,
        what="bank reflection",
        key=lambda item: item.key,
        name_key=lambda key: f"trajectory {key[0]} source {key[1]}",
    )


def truth_log(path: Path) -> DurableLog[TrajectoryTruth]:
    return DurableLog(path, TrajectoryTruth, what="trajectory truth", key=lambda item: item.trajectory)
