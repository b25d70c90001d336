"""ALFWorld's commands and answers read as facts: what an action does, which numbered things a text names, what a place
was shown to hold. Shared by the ground truth (diagnosis_truth.py) and the claim rule (diagnosis_claims.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from alfworld.gen.constants import MOVABLE_RECEPTACLES, NON_RECEPTACLES, RECEPTACLES

from harness.records.alfworld import NOTHING_HAPPENS

_COMMAND_RES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("go", re.compile(r"^go to (?P<place>[a-z]+ \d+)$")),
    ("open", re.compile(r"^open (?P<place>[a-z]+ \d+)$")),
    ("close", re.compile(r"^close (?P<place>[a-z]+ \d+)$")),
    ("take", re.compile(r"^take (?P<thing>[a-z]+ \d+) from (?P<place>[a-z]+ \d+)$")),
    ("put", re.compile(r"^put (?P<thing>[a-z]+ \d+) in/on (?P<place>[a-z]+ \d+)$")),
    ("heat", re.compile(r"^heat (?P<thing>[a-z]+ \d+) with (?P<place>[a-z]+ \d+)$")),
    ("cool", re.compile(r"^cool (?P<thing>[a-z]+ \d+) with (?P<place>[a-z]+ \d+)$")),
    ("clean", re.compile(r"^clean (?P<thing>[a-z]+ \d+) with (?P<place>[a-z]+ \d+)$")),
    ("use", re.compile(r"^use (?P<thing>[a-z]+ \d+)$")),
    ("examine", re.compile(r"^examine (?P<place>[a-z]+ \d+)$")),
    ("look", re.compile(r"^look$")),
    ("inventory", re.compile(r"^inventory$")),
)
NAME_RE = re.compile(r"\b([a-z]+) (\d+)\b")
"""A numbered thing as ALFWorld writes it: 'saltshaker 1', 'cabinet 12'."""
_TYPES = {name.lower(): name for name in {*NON_RECEPTACLES, *RECEPTACLES, *MOVABLE_RECEPTACLES}}
_ROOM_RE = re.compile(r"you see (.*?)\.(?:\s|$)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Command:
    """One action as ALFWorld's grammar reads it; kind 'other' for text the game does not know."""

    kind: str
    thing: str | None = None
    place: str | None = None


def parse_command(action: str) -> Command:
    text = " ".join(action.strip().lower().split())
    for kind, pattern in _COMMAND_RES:
        match = pattern.match(text)
        if match:
            groups = match.groupdict()
            return Command(kind, groups.get("thing"), groups.get("place"))
    return Command("other")


def type_of(name: str) -> str | None:
    """'saltshaker 1' -> 'SaltShaker'; None for a word ALFWorld has no type for."""
    return _TYPES.get(name.split(" ")[0])


def names_in(text: str) -> list[str]:
    """Every numbered ALFWorld thing a text names, in order ('a cabinet 6, a cabinet 5' -> both)."""
    return [f"{word} {number}" for word, number in NAME_RE.findall(text.lower()) if word in _TYPES]


def room_places(room: str) -> list[str]:
    """The receptacles the opening text lists ('You are in the middle of a room ... you see a cabinet 6, ...')."""
    match = _ROOM_RE.search(room.lower())
    return names_in(match.group(1)) if match else []


def shown_at(actions: Sequence[str], observations: Sequence[str]) -> dict[str, set[str]]:
    """What each place was shown to hold: place -> the numbered things an answer listed there (arriving, opening,
    examining), or taken from it."""
    shown: dict[str, set[str]] = {}
    for action, observation in zip(actions, observations):
        command = parse_command(action)
        if command.place is None or observation == NOTHING_HAPPENS:
            continue
        if command.kind in ("go", "open", "examine"):
            listed = [name for name in names_in(observation) if name != command.place]
            shown.setdefault(command.place, set()).update(listed)
        elif command.kind == "take" and command.thing:
            shown.setdefault(command.place, set()).add(command.thing)
    return shown


def shown_empty(actions: Sequence[str], observations: Sequence[str]) -> set[str]:
    """Places an answer said hold nothing ('you see nothing')."""
    return {
        command.place
        for action, observation in zip(actions, observations)
        if (command := parse_command(action)).place and "you see nothing" in observation.lower()
    }
