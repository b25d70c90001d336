"""ALFWorld's own words for its things and its six task types, as a reflection may write them.

The types are ALFWorld's (`alfworld.gen.constants`): objects an agent can carry, and receptacles. ALFWorld's text
writes a type in lower case with its words joined and a number ("saltshaker 1", "desklamp 1", "cd 1"); a model may
also space or hyphenate the words, capitalise them or use a plural. `find_names` reads every such name in a text.
"""

from __future__ import annotations

import re
from functools import cache

from pydantic import BaseModel, ConfigDict
from alfworld.gen.constants import MOVABLE_RECEPTACLES, NON_RECEPTACLES, RECEPTACLES

LAMPS = frozenset({"DeskLamp", "FloorLamp"})

# Fixtures of a room, never carried, that ALFWorld lists among its objects; a reflection naming one names no goal.
_FIXTURES = frozenset(
    {
        "Bathtub", "Blinds", "Chair", "Curtains", "Footstool", "LaundryHamperLid", "LightSwitch", "Mirror",
        "Painting", "Poster", "ShowerDoor", "ShowerGlass", "Sink", "StoveKnob", "Television", "Window",
    }
)  # fmt: skip
OBJECT_TYPES = frozenset(NON_RECEPTACLES) - _FIXTURES | frozenset(MOVABLE_RECEPTACLES)
"""Types a task can ask the agent to carry (the movable receptacles Bowl, Mug, Pan ... among them)."""
RECEPTACLE_TYPES = frozenset(RECEPTACLES) | {"Sink", "Bathtub"}
"""Where things are put or found; a reflection's "sink" is ALFWorld's sinkbasin, its "bathtub" the bathtubbasin."""

# Other words models use for a type: ALFWorld's own text never writes them, the few below are unambiguous.
_ALIASES = {
    "CellPhone": ("phone", "cell phone", "cellphone"),
    "RemoteControl": ("remote",),
    "KeyChain": ("keys", "key chain"),
    "SinkBasin": ("sink",),
    "BathtubBasin": ("bathtub", "tub"),
    "GarbageCan": ("trash can", "trashcan", "bin"),
    "Fridge": ("refrigerator",),
    "DeskLamp": ("lamp", "desk lamp"),
}
# Irregular plurals of the last word of a name.
_PLURALS = {"knife": "knives", "shelf": "shelves"}

_CAMEL_WORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


class Name(BaseModel):
    """Where a text names a type: text[start:end]."""

    model_config = ConfigDict(frozen=True)

    type: str
    start: int
    end: int
    text: str


def type_words(type_name: str) -> list[str]:
    """`SaltShaker` -> ['salt', 'shaker']; `TVStand` -> ['tv', 'stand']; `CD` -> ['cd']."""
    return [word.lower() for word in _CAMEL_WORD_RE.findall(type_name)]


def _forms(words: list[str]) -> list[str]:
    """The words joined, the last one possibly plural ("salt"+"shakers", "knives")."""
    *head, last = words
    plural = _PLURALS.get(last)
    endings = [plural] if plural else [last + "s", last + "es"]
    return ["".join([*head, form]) for form in [last, *endings]]


@cache
def _names_table() -> dict[str, list[tuple[str, frozenset[int]]]]:
    """Every form of every type and alias joined into one key, with the offsets inside it where its words meet: a
    name may be written with its words joined, spaced, hyphenated or underscored, but split only there."""
    table: dict[str, list[tuple[str, frozenset[int]]]] = {}
    named = [(type_words(t), t) for t in OBJECT_TYPES | RECEPTACLE_TYPES]
    named += [(alias.split(), t) for t, aliases in _ALIASES.items() for alias in aliases]
    for words, type_name in named:
        joints = frozenset(sum(map(len, words[:k])) for k in range(1, len(words)))
        for form in _forms(words):
            table.setdefault(form, []).append((type_name, joints))
    return table


@cache
def _starters() -> frozenset[str]:
    """Every run of letters a name can begin with: most words of a text begin none, and are passed over at once."""
    table = _names_table()
    return frozenset(key[:j] for key, entries in table.items() for _, joints in entries for j in joints) | set(table)


_LETTERS_RE = re.compile(r"[A-Za-z]+")
_MAX_WORDS = 3
"""The most words a type's name has (ToiletPaperHanger)."""
_SEPARATORS = frozenset(" \t\n\r\f\v_-")


def find_names(text: str) -> list[Name]:
    """Every ALFWorld type the text names, in order, the longest name first where two overlap.

    No letter may touch a name ("cup" is not in "cupboard", "pen" not in "open", "toiletpaper" not in
    "toiletpaperhanger"); a digit may ("mug1"). Read as runs of letters looked up in one table, so a text of any
    length is read in linear time (one regex of every form took a second per 500 KB).
    """
    table, starters = _names_table(), _starters()
    runs = [(m.start(), m.end(), m.group().lower()) for m in _LETTERS_RE.finditer(text)]
    names: list[Name] = []
    k = 0
    while k < len(runs):
        if runs[k][2] not in starters:
            k += 1
            continue
        for width in range(min(_MAX_WORDS, len(runs) - k), 0, -1):
            group = runs[k : k + width]
            if any(b[0] - a[1] != 1 or text[a[1]] not in _SEPARATORS for a, b in zip(group, group[1:])):
                continue
            key = "".join(run[2] for run in group)
            joints = {sum(len(run[2]) for run in group[:j]) for j in range(1, width)}
            found = next((t for t, allowed in table.get(key, ()) if joints <= allowed), None)
            if found is not None:
                start, end = group[0][0], group[-1][1]
                names.append(Name(type=found, start=start, end=end, text=text[start:end]))
                k += width
                break
        else:
            k += 1
    return names


# The six task types: their step beyond carrying the object, and the receptacle that does it.
TaskStep = str
TASK_STEPS: dict[str, TaskStep | None] = {
    "pick_and_place_simple": None,
    "pick_two_obj_and_place": None,
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
    "look_at_obj_in_light": "look",
}
STEP_TOOLS: dict[TaskStep, frozenset[str]] = {
    "clean": frozenset({"SinkBasin", "Sink"}),
    "heat": frozenset({"Microwave"}),
    "cool": frozenset({"Fridge"}),
    "look": LAMPS,
}
# The verbs of each step as a reflection writes them; "look" is read from a lamp used in the plan instead, since
# "examine" and "look" are also how models describe searching.
STEP_VERBS: dict[TaskStep, re.Pattern[str]] = {
    "clean": re.compile(r"\b(?:clean|cleans|cleaned|cleaning|wash|washes|washed|washing|rinse|rinsed|rinsing)\b", re.I),
    "heat": re.compile(r"\b(?:heat|heats|heated|heating|warm|warms|warmed|warming)\b", re.I),
    "cool": re.compile(r"\b(?:cool|cools|cooled|cooling|chill|chilled|chilling|refrigerated?|freezed?|froze)\b", re.I),
}
