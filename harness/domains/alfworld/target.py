"""The target object of an ALFWorld task, read from its task folder name alone.

A task folder is `<type>-<object>-<movable receptacle>-<receptacle>-<scene>`, for instance
`pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10`; the game id adds `/<trial folder>`.
Records and the published logs keep only this name, so it is where the object must come from.
"""

from __future__ import annotations

_FIELDS = 5


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
