"""Each published task's RRR, computed once per distinct memory: SequenceMatcher is the audit's only slow part."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.published import PublishedTask
from harness.metrics.core import is_frozen, reflection_repetition_rate


class TaskRRR(BaseModel):
    """One task's memory reduced to the figures the audit aggregates."""

    model_config = ConfigDict(frozen=True)

    task_id: str = Field(description="The task's name in the log.")
    reflections: int = Field(ge=0, description="Reflections in its final memory.")
    rrr: float | None = Field(description="Reflection repetition rate; None below two reflections.")
    frozen: bool = Field(description="rrr >= 0.5.")
    trials: int | None = Field(description="Trials played, when the log says so.")


def task_rrr(task: PublishedTask, known: dict[tuple[str, ...], float | None]) -> TaskRRR:
    """The task's figures; `known` holds the RRR of memories already measured and gains this one."""
    memory = tuple(task.reflections)
    if memory not in known:
        known[memory] = reflection_repetition_rate(memory)
    rrr = known[memory]
    return TaskRRR(
        task_id=task.task_id,
        reflections=len(task.reflections),
        rrr=rrr,
        frozen=is_frozen(rrr),
        trials=task.trials,
    )


def task_rrrs(
    tasks: Sequence[PublishedTask], known: dict[tuple[str, ...], float | None] | None = None
) -> list[TaskRRR]:
    """The figures of every task, in the source's order.

    Pass one `known` dict across sources: several runs are published twice (a text log and its
    pickle, a base run equal to a reflexion run), so identical memories are measured once.
    """
    known = {} if known is None else known
    return [task_rrr(task, known) for task in tasks]
