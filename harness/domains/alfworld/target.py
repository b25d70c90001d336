"""The target object of an ALFWorld task, read from its task folder name alone.

A task folder is `<type>-<object>-<movable receptacle>-<receptacle>-<scene>`, for instance
`pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10`; the game id adds `/<trial folder>`.
Records and the published logs keep only this name, so it is where the object must come from; object mention of a
run is measured from it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from harness.domains.alfworld.vocabulary import LAMPS, OBJECT_TYPES, RECEPTACLE_TYPES, TASK_STEPS
from harness.metrics.core import MentionCounts, object_mention
from harness.metrics.object_mention import MentionSpan, object_mention_spans
from harness.records import TrialRecord

_FIELDS = 5
TASK_TYPES = tuple(TASK_STEPS)
MENTION_NOTE = (
    "ALFWorld: the object is the task's target object (e.g. Mug); strict: its CamelCase name as a case-sensitive "
    "substring (the study's rule); normalized: case-insensitive, its words joined or spaced."
)


def _closest(value: str, known: Iterable[str]) -> str:
    return ", ".join(difflib.get_close_matches(value, sorted(known), n=3, cutoff=0.5)) or "none close"


def task_parts(task: str) -> tuple[str, str, str]:
    """(`pick_cool_then_place_in_recep`, `Mug`, `CoffeeMachine`) for
    `pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10[/trial_...]`: task type, object, receptacle."""
    folder = task.split("/", 1)[0]
    fields = folder.split("-")
    if len(fields) != _FIELDS or not fields[1].isalpha() or fields[0] not in TASK_TYPES:
        raise ValueError(
            f"{task!r} is not an ALFWorld task folder <type>-<object>-<mrecep>-<recep>-<scene> with one of the six "
            f"task types ({', '.join(TASK_TYPES)}), so it names no target object."
        )
    task_type, target, receptacle = fields[0], fields[1], fields[3]
    # A type ALFWorld does not have would label every reflection vacuous instead of saying the task is mistyped.
    if target not in OBJECT_TYPES:
        raise ValueError(
            f"{task!r} names the object {target!r}, which ALFWorld does not have (closest: "
            f"{_closest(target, OBJECT_TYPES)})."
        )
    if receptacle not in RECEPTACLE_TYPES | LAMPS:
        raise ValueError(
            f"{task!r} names the receptacle {receptacle!r}, which ALFWorld does not have (closest: "
            f"{_closest(receptacle, RECEPTACLE_TYPES | LAMPS)})."
        )
    return task_type, target, receptacle


def target_object(task: str) -> str:
    """`Mug` for `pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10[/trial_...]`."""
    return task_parts(task)[1]


def task_mentions(records: Sequence[TrialRecord]) -> MentionCounts:
    """Object mention over one task's reflections (one condition), in trial order: its target object named."""
    reflections = [r.reflection for r in sorted(records, key=lambda r: r.trial) if r.reflection is not None]
    return object_mention(reflections, target_object(records[0].task_id))


def reflection_spans(record: TrialRecord) -> list[MentionSpan]:
    """Where the record's reflection names its task's target object, strict and normalized."""
    return [] if record.reflection is None else object_mention_spans(record.reflection, target_object(record.task_id))
