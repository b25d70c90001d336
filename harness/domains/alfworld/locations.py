"""Where a text says an ALFWorld thing is, and where a play of the game first saw it.

A location claim is an object and a receptacle joined as a fact, "soapbar 1 in cabinet 1", "took cloth 2 from
cabinet 4", "the mug 1 was on the countertop 2"; an action that puts the object there ("put soapbar 1 in/on cabinet
1", "heat the egg 1 in microwave 1") states where it goes, not where it is, and is no claim; nor is a negated one
("was not in"). A play's facts are what its observations show before the agent moved anything there: the first
receptacle each object was seen in or taken from, and each receptacle's contents the first time it was looked into.
A claim is confirmed when the object was first seen in that receptacle, contradicted when it was first seen
elsewhere or the receptacle's first look did not hold it (with the observation quoted), unverifiable otherwise.

Every text is read through `plain` (the identity rules' normalisation, accents and case folded), so fullwidth
letters, a zero-width space or a combining mark hide nothing from these rules or from the rule-write gate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from harness.domains.alfworld.vocabulary import OBJECT_TYPES, RECEPTACLE_TYPES, find_names
from harness.domains.normalized_text import fold_accents, normalize_text

Verdict = Literal["confirmed", "contradicted", "unverifiable"]
VERDICTS: tuple[Verdict, ...] = ("confirmed", "contradicted", "unverifiable")


def plain(text: str) -> str:
    """The text as every rule reading it sees it: NFKC, format characters gone, accents and case folded."""
    return fold_accents(normalize_text(text).text)


_ITEM = r"[a-z]+ \d+"
_CLAIM_RE = re.compile(
    r"\b(?P<object>[a-z]+(?: \d+)?)(?: (?:is|was|were|are|lies|lay|sits|sat|can be))?"
    r"(?: (?:located|found|seen|kept|lying|sitting|still|already|originally))?"
    rf" (?P<prep>in/on|in|on|inside|from|at) (?:the )?(?P<receptacle>{_ITEM})"
)
# Verbs that send an object somewhere or change it with a receptacle: their "in Y" is the destination or the tool.
_PLACING = frozenset(
    "put puts putting place places placed placing move moves moved moving drop drops dropped dropping return returns "
    "returned returning bring brings brought bringing carry carries carried carrying heat heats heated heating cool "
    "cools cooled cooling clean cleans cleaned cleaning wash washed washing rinse rinsed chill chilled store stored "
    "leave left insert inserted".split()
)
# Verbs that read where an object is: they end a placing verb's reach ("put X in Y, then took Z from W").
_READING = frozenset(
    "take takes took taken taking pick picks picked picking get gets got getting grab grabs grabbed find finds found "
    "finding see sees saw seen seeing remove removes removed removing look looked locate located is was were are "
    "there".split()
)
_CLAUSE_END_RE = re.compile(r"[.,;:!?\n]|\bthen\b")


def _type_of(item: str, types: frozenset[str]) -> str | None:
    names = find_names(item.rsplit(" ", 1)[0])
    return names[0].type.lower() if len(names) == 1 and names[0].type in types else None


def _placed(before: str) -> bool:
    """Whether the clause before an object is governed by a placing verb (the last action verb decides)."""
    clause = _CLAUSE_END_RE.split(before)[-1]
    for word in reversed(clause.split()):
        if word in _PLACING:
            return True
        if word in _READING:
            return False
    return False


@dataclass(frozen=True)
class LocationClaim:
    """`object` (ALFWorld's text: "soapbar 1", or "soapbar" for any of them) stated to be in `receptacle` ("cabinet
    1"), as `words` say it."""

    object: str
    receptacle: str
    words: str


def location_claims(text: str) -> list[LocationClaim]:
    """The text's object-location claims, in order, each once."""
    read = plain(text)
    claims: list[LocationClaim] = []
    for match in _CLAIM_RE.finditer(read):
        obj, receptacle = match.group("object"), match.group("receptacle")
        obj_type, receptacle_type = _type_of(obj, OBJECT_TYPES), _type_of(receptacle, RECEPTACLE_TYPES)
        if obj_type is None or receptacle_type is None or _placed(read[: match.start()]):
            continue
        number = obj.split(" ")[1:]
        claim = LocationClaim(object=" ".join([obj_type, *number]),
                              receptacle=f"{receptacle_type} {receptacle.rsplit(' ', 1)[1]}", words=match.group())
        if all((c.object, c.receptacle) != (claim.object, claim.receptacle) for c in claims):
            claims.append(claim)
    return claims


_LOOK_RES = (
    re.compile(rf"on the (?P<receptacle>{_ITEM}), you see (?P<items>[^.\n]*)"),
    re.compile(rf"the (?P<receptacle>{_ITEM}) is open\. in it, you see (?P<items>[^.\n]*)"),
)
_TAKE_RE = re.compile(rf"you pick up the (?P<object>{_ITEM}) from the (?P<receptacle>{_ITEM})")
_PUT_RE = re.compile(rf"you put the (?P<object>{_ITEM}) in/on the (?P<receptacle>{_ITEM})")
_LISTED_RE = re.compile(rf"\ban? ({_ITEM})")


@dataclass
class PlayFacts:
    """What plays showed of their games' first state: each object's first receptacle, each receptacle's first
    contents (looked into before anything was put there), with the observation that shows it."""

    seen_in: dict[str, tuple[str, str]] = field(default_factory=dict)
    contents: dict[str, tuple[frozenset[str], str]] = field(default_factory=dict)

    def read(self, trajectory: str) -> PlayFacts:
        """The facts with one more play's first sightings added (a fact seen first in an earlier play stays)."""
        touched: set[str] = set()
        for written in trajectory.splitlines():
            line, quoted = plain(written), written.strip()
            for pattern in _LOOK_RES:
                for match in pattern.finditer(line):
                    receptacle = match.group("receptacle")
                    items = frozenset(_LISTED_RE.findall(match.group("items")))
                    if receptacle not in touched:
                        self.contents.setdefault(receptacle, (items, quoted))
                        for item in items:
                            self.seen_in.setdefault(item, (receptacle, quoted))
            for match in _TAKE_RE.finditer(line):
                self.seen_in.setdefault(match.group("object"), (match.group("receptacle"), quoted))
            touched.update(match.group("receptacle") for match in _PUT_RE.finditer(line))
        return self


def play_facts(trajectories: Iterable[str]) -> PlayFacts:
    """The facts of one or more plays (the trajectories a critique read)."""
    facts = PlayFacts()
    for trajectory in trajectories:
        facts.read(trajectory)
    return facts


@dataclass(frozen=True)
class CheckedClaim:
    """A claim with its verdict and, unless unverifiable, the observation that decides it."""

    claim: LocationClaim
    verdict: Verdict
    evidence: str | None


def _instances(obj: str, items: Iterable[str]) -> list[str]:
    """The items that are `obj`: itself, or every numbered one of an unnumbered type."""
    return [item for item in items if item == obj or item.rsplit(" ", 1)[0] == obj]


def check_claim(claim: LocationClaim, facts: PlayFacts) -> CheckedClaim:
    """Confirmed, contradicted or unverifiable against the plays' first sightings. A claim about a type ("a
    soapbar from cabinet 1") is confirmed by any of its objects first seen there, contradicted only by the
    receptacle's first look holding none of them."""
    looked = facts.contents.get(claim.receptacle)
    if " " not in claim.object:
        there = [item for item in _instances(claim.object, facts.seen_in) if facts.seen_in[item][0] == claim.receptacle]
        if there:
            return CheckedClaim(claim, "confirmed", facts.seen_in[there[0]][1])
        if looked is not None and not _instances(claim.object, looked[0]):
            return CheckedClaim(claim, "contradicted", looked[1])
        return CheckedClaim(claim, "unverifiable", None)
    seen = facts.seen_in.get(claim.object)
    if seen is not None:
        verdict: Verdict = "confirmed" if seen[0] == claim.receptacle else "contradicted"
        return CheckedClaim(claim, verdict, seen[1])
    if looked is not None and claim.object not in looked[0]:
        return CheckedClaim(claim, "contradicted", looked[1])
    return CheckedClaim(claim, "unverifiable", None)


def checked_claims(text: str, trajectories: Sequence[str]) -> list[CheckedClaim]:
    """Every location claim of `text` checked against each play in `trajectories` (plays of other games may
    number their objects alike): confirmed by any play, else contradicted by any, else unverifiable."""
    plays = [play_facts([trajectory]) for trajectory in trajectories]
    checked = []
    for claim in location_claims(text):
        verdicts = [check_claim(claim, facts) for facts in plays]
        checked.append(next((c for verdict in ("confirmed", "contradicted") for c in verdicts if c.verdict == verdict),
                            CheckedClaim(claim, "unverifiable", None)))
    return checked
