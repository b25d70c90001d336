"""The target object of an ALFWorld task, read from its task folder name alone.

A task folder is `<type>-<object>-<movable receptacle>-<receptacle>-<scene>`, for instance
`pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10`; the game id adds `/<trial folder>`.
Records and the published logs keep only this name, so it is where the object must come from; object mention of a
run is measured from it.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.core import MentionCounts, MentionSpan, object_mention, object_mention_spans
from harness.records import TrialRecord

_FIELDS = 5
MENTION_NOTE = (
    "ALFWorld: the object is the task's target object (e.g. Mug); strict: its CamelCase name as a case-sensitive "
    "substring (the study's rule); normalized: case-insensitive, its words joined or spaced."
)


def target_object(task: str) -> str:
    """`Mug` for `pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10[/trial_...]`."""
    folder = task.split("/", 1)[0]
    fields = folder.split("-")
    if len(fields) != _FIELDS or not fields[1].isalpha():
        raise ValueError(
            f"{task!r} is not an ALFWorld task folder <type>-<object>-<mrecep>-<recep>-<scene>, "
            "so it names no target object."
        )
    return fields[1]


def task_mentions(records: Sequence[TrialRecord]) -> MentionCounts:
    """Object mention over one task's reflections (one condition), in trial order: its target object named."""
    reflections = [r.reflection for r in sorted(records, key=lambda r: r.trial) if r.reflection is not None]
    return object_mention(reflections, target_object(records[0].task_id))


def reflection_spans(record: TrialRecord) -> list[MentionSpan]:
    """Where the record's reflection names its task's target object, strict and normalized."""
    return [] if record.reflection is None else object_mention_spans(record.reflection, target_object(record.task_id))
