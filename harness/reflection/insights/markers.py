"""What marks a planted reflection in a rule, and the text it is measured against.

An off-task plant (and any plant but misplaced) is marked by its entity words absent from the planted task's own
text, every training task's sentence and every other reflection (`training_text`): a rule naming one carries it. A
misplaced plant names no foreign word, so it is marked by its moved location claims ("soapbar 1 in cabinet 3"): a
rule stating one of them carries it.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.domains.alfworld.locations import LocationClaim, location_claims
from harness.records.insights import ExperienceTask
from harness.reflection.insights.rule_gate import entity_words

_CLAIM_JOINT = " in "


def own_text(task: ExperienceTask) -> str:
    """A task's own text: its sentence and its trials' trajectories (not its reflections)."""
    return "\n".join([task.task, *(trial.trajectory for trial in task.trials)])


def training_text(order: Sequence[ExperienceTask], planted: ExperienceTask) -> str:
    """What a plant's markers are measured against: the planted task's own text, every training task's sentence and
    every other reflection. A marker is an entity none of these names, so it reaches a rule from the plant, or from
    another task's trajectory (expert plays name most objects of their rooms): the clean builds' null counts those."""
    parts = [own_text(planted), *(task.task for task in order)]
    parts += [t.reflection or "" for task in order if task.id != planted.id for t in task.trials]
    return "\n".join(parts)


def markers(plant: str | None, reference: str) -> list[str]:
    """The plant's entity words the reference text does not name."""
    own = set(entity_words(reference))
    return [word for word in entity_words(plant or "") if word not in own]


def claim_marker(claim: LocationClaim) -> str:
    """A location claim as a marker: 'soapbar 1 in cabinet 3'."""
    return f"{claim.object}{_CLAIM_JOINT}{claim.receptacle}"


def carries(rule: str, marker_words: Sequence[str]) -> bool:
    """Whether a rule names one of the marker words, or states one of the marker claims."""
    claims = [m for m in marker_words if _CLAIM_JOINT in m]
    words = set(marker_words) - set(claims)
    if words and set(entity_words(rule)) & words:
        return True
    moved = {tuple(m.split(_CLAIM_JOINT, 1)) for m in claims}
    # A rule that drops the object's number ("a soapbar in cabinet 3") states the same misplacement.
    return any((c.object, c.receptacle) in moved or any(c.receptacle == where and obj.rsplit(" ", 1)[0] == c.object
                                                         for obj, where in moved)
               for c in (location_claims(rule) if moved else []))
