"""`insights.jsonl`: the rule libraries of a run (memory.scope insights or both), one line per event, durable and
resumable under the trial log's rules (`harness.records.log`).

Per (condition, fold) a `LibraryOpened` line names what the library is built from (its training and evaluation tasks,
its options, the planted reflection if any), then one `CritiqueAnswered` line per critique, in ExpeL's order, with the
request and the critic's raw answer: replaying the answers (`harness.reflection.insights.replay`) gives the library
with every rule's history, so nothing derived is stored. Evaluation trials go to `evaluation.jsonl`, as TrialRecords.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel

from harness.records.insights import Critique
from harness.records.log import DurableLog

INSIGHTS_FILE = "insights.jsonl"
EVALUATION_FILE = "evaluation.jsonl"


class PlantRecord(BaseModel):
    """The reflection planted into one training task's memory, as the trace reads it back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str = Field(description="The training task whose actor read it in every trial.")
    reflection: str = Field(description="The planted text, exactly as it was put into that task's memory.")
    in_training: bool = Field(description="Whether the task is among this library's training tasks.")


class LibraryOpened(BaseModel):
    """The first line of one library: what it is built from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["library"] = "library"
    condition: str
    fold: int = Field(ge=0)
    training_tasks: list[str] = Field(description="The tasks whose trials the critic reads, in run order.")
    evaluation_tasks: list[str] = Field(description="The fold's tasks, played with the library in their prompt.")
    max_num_rules: int
    success_critique_num: int
    read_reflections: bool
    room_description: bool = Field(False, description="The critic read each task with its room (ALFWorld).")
    without_room: list[str] = Field(default_factory=list, description="Tasks whose room could not be recomputed.")
    critiques: int = Field(ge=0, description="The critiques planned, in ExpeL's order.")
    plant: PlantRecord | None = None


class CritiqueAnswered(BaseModel):
    """One critique of a library: the request as sent and the critic's answer exactly as returned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["critique"] = "critique"
    condition: str
    fold: int = Field(ge=0)
    step: int = Field(ge=0, description="The critique's position in the library's sequence.")
    critique: Critique
    request: str = Field(description="The one user message sent to the critic.")
    raw_answer: str


class InsightsLine(RootModel[Annotated[Union[LibraryOpened, CritiqueAnswered], Field(discriminator="kind")]]):
    """One line of insights.jsonl."""


def _key(line: InsightsLine) -> tuple[str, str, int, int]:
    entry = line.root
    return (entry.kind, entry.condition, entry.fold, entry.step if isinstance(entry, CritiqueAnswered) else -1)


def insights_log(run_dir: Path, *, single_writer: bool = False) -> DurableLog[InsightsLine]:
    """The run's insights.jsonl: each library opened once, each critique recorded once."""
    return DurableLog(
        Path(run_dir) / INSIGHTS_FILE, InsightsLine, what="insights line", key=_key, single_writer=single_writer,
        quiet_reads=not single_writer,
    )


def read_insights(run_dir: Path) -> list[LibraryOpened | CritiqueAnswered]:
    """Every line of a run's insights.jsonl, in order ([] when the run built no library)."""
    if not (Path(run_dir) / INSIGHTS_FILE).exists():
        return []
    return [line.root for line in insights_log(run_dir).read()]
