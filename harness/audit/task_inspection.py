"""One published task's memory laid open: its reflections, how similar each is to the others, and which repeat."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.errors import UnknownTaskError
from harness.audit.published import PublishedTask
from harness.metrics.core import (
    FROZEN_THRESHOLD,
    SIMILARITY_THRESHOLD,
    is_frozen,
    pairwise_similarities,
    reflection_repetition_rate,
)


class TaskInspection(BaseModel):
    """What `reflexion-audit show` prints for one task."""

    model_config = ConfigDict(frozen=True)

    source: str
    task_id: str
    reflections: list[str] = Field(description="In the order written.")
    similarities: list[list[float]] = Field(description="[i][j] = similarity(reflection i, reflection j).")
    repeats: dict[int, list[int]] = Field(
        description="0-based index of each repeating reflection -> the earlier ones it is >= the threshold to."
    )
    rrr: float | None = Field(description="Reflection repetition rate; None below two reflections.")
    frozen: bool


def find_task(tasks: Sequence[PublishedTask], task_id: str, source: str) -> PublishedTask:
    """The task called `task_id`; UnknownTaskError naming close matches otherwise."""
    by_id = {task.task_id: task for task in tasks}
    if task_id in by_id:
        return by_id[task_id]
    close = difflib.get_close_matches(task_id, by_id, n=3)
    hint = f" Closest: {', '.join(close)}." if close else f" It has {len(by_id)} tasks, e.g. {next(iter(by_id), '-')}."
    raise UnknownTaskError(f"source {source} has no task {task_id!r}.{hint}")


def inspect_task(task: PublishedTask) -> TaskInspection:
    """Similarities both ways, and for each later reflection the earlier ones it repeats."""
    matrix = pairwise_similarities(task.reflections)
    earlier = {i: [j for j in range(i) if matrix[i][j] >= SIMILARITY_THRESHOLD] for i in range(1, len(matrix))}
    repeats = {i: hits for i, hits in earlier.items() if hits}
    rrr = reflection_repetition_rate(task.reflections)
    return TaskInspection(
        source=task.source,
        task_id=task.task_id,
        reflections=task.reflections,
        similarities=matrix,
        repeats=repeats,
        rrr=rrr,
        frozen=is_frozen(rrr),
    )


_CELL = 7


def _cell(i: int, j: int, value: float) -> str:
    if i == j:
        return "-".rjust(_CELL)
    mark = "*" if j < i and value >= SIMILARITY_THRESHOLD else " "
    return f"{value:.2f}{mark}".rjust(_CELL)


def _matrix(similarities: list[list[float]]) -> list[str]:
    lines = ["row \\ column".ljust(14) + "".join(f"#{j + 1} ".rjust(_CELL) for j in range(len(similarities)))]
    for i, row in enumerate(similarities):
        lines.append(f"#{i + 1}".ljust(14) + "".join(_cell(i, j, value) for j, value in enumerate(row)))
    return lines


def render_inspection(inspection: TaskInspection) -> str:
    """Numbered reflections, the similarity matrix with its direction explained, the repeats and the RRR."""
    n = len(inspection.reflections)
    lines = [f"{inspection.source} / {inspection.task_id}: {n} reflection(s)", ""]
    lines += [f"#{i + 1}: {reflection}" for i, reflection in enumerate(inspection.reflections)]
    if n >= 2:
        lines += [
            "",
            "Similarity: row #i, column #j = difflib.SequenceMatcher(None, reflection #i, reflection #j).ratio().",
            "Below the diagonal (row later than column) is similarity(later, earlier), the direction RRR uses; above",
            "it is the reverse order, shown for comparison (autojunk makes the two differ for long texts).",
            f"* marks a repeat: >= {SIMILARITY_THRESHOLD} to an earlier reflection.",
            "",
            *_matrix(inspection.similarities),
        ]
    lines.append("")
    for i in range(1, n):
        earlier = inspection.repeats.get(i)
        verdict = "repeats " + ", ".join(f"#{j + 1}" for j in earlier) if earlier else "new (repeats no earlier one)"
        lines.append(f"#{i + 1}: {verdict}")
    if inspection.rrr is None:
        lines.append("RRR: undefined (fewer than two reflections); not frozen.")
    else:
        state = "frozen" if inspection.frozen else "not frozen"
        lines.append(
            f"RRR = {len(inspection.repeats)} repeating / {n - 1} after the first = {inspection.rrr:.2f}: "
            f"{state} (frozen means RRR >= {FROZEN_THRESHOLD})."
        )
    return "\n".join(lines)
