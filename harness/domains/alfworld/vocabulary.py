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


def _form_pattern(words: list[str]) -> str:
    """The words joined, spaced or hyphenated, the last one possibly plural."""
    *head, last = words
    plural = _PLURALS.get(last)
    last_form = f"(?:{re.escape(plural)}|{re.escape(last)}(?:e?s)?)" if plural else f"{re.escape(last)}(?:e?s)?"
    return r"[\s_-]?".join([*map(re.escape, head), last_form])


@cache
def _names_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    """One alternation of every form, longest first, so "butter knife" is ButterKnife and not Knife."""
    forms: dict[str, str] = {}
    for type_name in OBJECT_TYPES | RECEPTACLE_TYPES:
        forms[_form_pattern(type_words(type_name))] = type_name
    for type_name, aliases in _ALIASES.items():
        for alias in aliases:
            forms[_form_pattern(alias.split())] = type_name
    ordered = sorted(forms, key=len, reverse=True)
    groups = "|".join(f"(?P<t{i}>{form})" for i, form in enumerate(ordered))
    # No letter may touch a name: "cup" is not in "cupboard", "pen" not in "open", "toiletpaper" not in
    # "toiletpaperhanger"; a digit may ("mug1").
    pattern = re.compile(rf"(?<![a-z])(?:{groups})(?![a-z])", re.IGNORECASE)
    return pattern, {f"t{i}": forms[form] for i, form in enumerate(ordered)}


def find_names(text: str) -> list[Name]:
    """Every ALFWorld type the text names, in order, longest name first where two overlap."""
    pattern, groups = _names_pattern()
    return [
        Name(type=groups[match.lastgroup], start=match.start(), end=match.end(), text=match.group())
        for match in pattern.finditer(text)
        if match.lastgroup is not None
    ]


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
