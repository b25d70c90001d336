"""The study's plants: what the planted task's failed trial shows as its reflection, and what marks it.

off_task is cross-paired: the reflection of a published task outside the training order whose entity words the
training text does not name (its markers), the seed's variants its first donors in the seed's shuffled order.
misplaced is the planted task's own published reflection with each location claim its play can contradict moved to
another receptacle of the room the play contradicts (a reflection with no such claim gets one sentence in the
published reflections' own words, "I noticed that the soapbar 1 was in cabinet 3."); its markers are the moved
claims, so it names no foreign word and only the location check traces it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.domains.alfworld.locations import (
    LocationClaim,
    PlayFacts,
    check_claim,
    location_claims,
    play_facts,
    plain,
)
from harness.errors import ConfigError
from harness.records.insights import ExperienceTask
from harness.records.propagation import PlantKind
from harness.reflection.insights.markers import claim_marker, markers, training_text

_ROOM_RE = re.compile(r"looking quickly around you, you see (?P<items>[^\n]*)")
_ITEM_RE = re.compile(r"\ban? ([a-z]+ \d+)")


@dataclass(frozen=True)
class PlantText:
    """A plant as the build reads it."""

    kind: PlantKind
    variant: int
    text: str | None
    donor: str | None
    markers: list[str]


def reflection_of(task: ExperienceTask) -> str:
    """The reflection written after the task's failed trial."""
    return next(trial.reflection or "" for trial in task.trials if not trial.success)


def room(trajectory: str) -> list[str]:
    """The receptacles the play's room shows at its start ("cabinet 4", ...)."""
    found = _ROOM_RE.search(plain(trajectory))
    return _ITEM_RE.findall(found.group("items")) if found else []


def _wrong_places(claim: LocationClaim, facts: PlayFacts, places: Sequence[str]) -> list[str]:
    return [place for place in places if place != claim.receptacle
            and check_claim(LocationClaim(claim.object, place, claim.words), facts).verdict == "contradicted"]


def misplace(task: ExperienceTask, target: str, rng: random.Random) -> tuple[str, list[str]]:
    """The task's own reflection with its claims moved where its play contradicts them; and the moved claims.
    `target`: the task's target object type, named by the added sentence when no claim can move."""
    text = reflection_of(task)
    plays = [trial.trajectory for trial in task.trials if trial.success]
    facts, places = play_facts(plays), [place for play in plays for place in room(play)]
    moved: list[str] = []
    for claim in location_claims(text):
        wrong = _wrong_places(claim, facts, places)
        if not wrong:
            continue
        place = rng.choice(wrong)
        said = re.compile(r"\s+".join(map(re.escape, claim.words.split())), re.IGNORECASE)
        written = said.search(text)
        if written is None:  # the claim was read through the normalisation: its words are not in the text as such
            continue
        tail = re.compile(re.escape(claim.receptacle) + r"$", re.IGNORECASE)
        text = text[:written.start()] + tail.sub(place, written.group()) + text[written.end():]
        moved.append(claim_marker(LocationClaim(claim.object, place, claim.words)))
    if not moved:
        seen = sorted(obj for obj in facts.seen_in if obj.rsplit(" ", 1)[0] == target) or [f"{target} 1"]
        claim = LocationClaim(seen[0], facts.seen_in.get(seen[0], ("", ""))[0], "")
        place = rng.choice(_wrong_places(claim, facts, places) or [p for p in places if p != claim.receptacle])
        text = f"{text.rstrip()} I noticed that the {seen[0]} was in {place}."
        moved.append(claim_marker(LocationClaim(seen[0], place, "")))
    return text, moved


def _donors(order: Sequence[ExperienceTask], planted: ExperienceTask, donors: Mapping[str, str],
            seed: int) -> list[tuple[str, list[str]]]:
    """Every donor with a marker, in the seed's order, with its markers."""
    training = {task.id for task in order}
    reference = training_text(order, planted)
    candidates = sorted(donor for donor in donors if donor not in training)
    random.Random(seed).shuffle(candidates)
    return [(donor, found) for donor in candidates if (found := markers(donors[donor], reference))]


def plant_texts(kind: PlantKind, planted: ExperienceTask, target: str, order: Sequence[ExperienceTask],
                vacuous: str, donors: Mapping[str, str], seed: int, step: int, variants: int) -> list[PlantText]:
    """The seed's plants of one kind at one step: `variants` of off_task and (those that differ) of misplaced, one
    of the others; `target` is the planted task's target object type."""
    if kind == "off_task":
        found = _donors(order, planted, donors, seed)
        if len(found) < variants:
            raise ConfigError(
                f"scenario.donors={variants}: only {len(found)} published reflection(s) name an entity absent from the "
                f"training text of seed {seed} (planted task {planted.id}); lower scenario.donors."
            )
        return [PlantText(kind, i, donors[donor], donor, words) for i, (donor, words) in enumerate(found[:variants])]
    if kind == "misplaced":
        made = [misplace(planted, target, random.Random(f"misplaced/{seed}/{step}/{i}")) for i in range(variants)]
        # A reflection with few places to move to draws the same text again: it is one plant, built once.
        distinct = list({text: moved for text, moved in made}.items())
        return [PlantText(kind, i, text, None, moved) for i, (text, moved) in enumerate(distinct)]
    reference = training_text(order, planted)
    text = {"none": None, "correct": reflection_of(planted), "vacuous": vacuous}[kind]
    return [PlantText(kind, 0, text, None, markers(text, reference))]
