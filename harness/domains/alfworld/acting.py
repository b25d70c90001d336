"""Whether an ALFWorld actor acted on a location claim: went to or opened the claimed receptacle, or took the claimed
object from it. Read from the episode's actions alone; the behavioural stage of spread (an agent acts on a rule)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.domains.alfworld.locations import LocationClaim, plain

_GO_RE = re.compile(r"^(?:go to|open|examine) (?P<receptacle>[a-z]+ \d+)$")
_TAKE_RE = re.compile(r"^take (?P<object>[a-z]+(?: \d+)?) from (?P<receptacle>[a-z]+ \d+)$")


def _same_object(claimed: str, taken: str) -> bool:
    """'soapbar 1' is 'soapbar 1'; a claim about a type ('soapbar') is any of its objects."""
    return taken == claimed or (" " not in claimed and taken.rsplit(" ", 1)[0] == claimed)


def acting_actions(claims: Sequence[LocationClaim], actions: Sequence[str]) -> list[str]:
    """The episode's actions that act on one of the claims, in order."""
    acted = []
    for action in actions:
        said = " ".join(plain(action).split())
        go, take = _GO_RE.match(said), _TAKE_RE.match(said)
        for claim in claims:
            if (go and go.group("receptacle") == claim.receptacle) or (
                    take and take.group("receptacle") == claim.receptacle
                    and _same_object(claim.object, take.group("object"))):
                acted.append(action)
                break
    return acted
