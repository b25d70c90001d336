"""Which ALFWorld task a reflection is about: its goal object, where it puts it, and which step it plans.

The text is normalised first (`harness.domains.normalized_text`: a zero-width space or fullwidth letters hide no
name). It is read clause by clause (sentences, lines, semicolons; `clauses`). A name of an object type (`vocabulary`)
is a goal when the clause plans it ("I should have taken", "I will", "my plan was to find", "tried to", an imperative
step), not when the clause narrates what happened ("I took the spraybottle", "you see a vase") or sets it aside
("before taking the spraybottle", "I should not put it in toilet 1", a narrated "the knife instead of the
butterknife", a planned "in toilet 1 instead of desk 1" for desk 1). In a planned clause, where the plan puts this
task's object ("put it in countertop 1") and which task step it plans (heat, cool, clean, a lamp) are checked against
the task folder.

- on_task: this task's object is named, no other object is planned as a goal, and no planned destination or step
  contradicts the task;
- off_task: another object is planned as a goal, or this object is planned into another receptacle or through
  another task type's step;
- vacuous: no object is named at all (generic advice, receptacles only, empty or cut off).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache

from harness.domains.alfworld.clauses import Clause, ClauseReading
from harness.domains.alfworld.target import task_parts
from harness.domains.alfworld.vocabulary import (
    LAMPS,
    OBJECT_TYPES,
    RECEPTACLE_TYPES,
    STEP_TOOLS,
    STEP_VERBS,
    TASK_STEPS,
    Name,
    find_names,
)
from harness.domains.normalized_text import NormalizedText, normalize_text
from harness.records import TrialRecord
from harness.records.identity import IdentityEvidence, ReflectionIdentity

RULE = "alfworld/3"
IDENTITY_NOTE = (
    "ALFWorld task identity: on_task names the task's object and plans no other object, receptacle or task step; "
    "off_task plans another object, or this one into another receptacle or through another task type's step; "
    "vacuous names no object."
)

# Before a name, these make it a place: where something is, goes or is taken from, or what is opened (only
# receptacles open, so "open the soapbottle" treats it as one).
_LOCATION_RE = re.compile(
    r"\b(?:from|in|on|in/on|into|onto|inside|at|to|near|beside|under|with|of|behind|by|towards?|around|"
    r"between|beneath|across|open|opens|opened|opening|close|closes|closed|closing)\s+"
    r"(?:(?:the|a|an|some|another|other|each|every|that|this|all|any)\s+)?$",
    re.IGNORECASE,
)
_PUT_RE = re.compile(
    r"\b(?:put|puts|putting|place|places|placed|placing|move|moves|moved|moving|drop|drops|dropped|return|returns|"
    r"returned|bring|brings|brought|carry|carries|carried|deliver|delivers|delivered|leave|set)\b",
    re.IGNORECASE,
)
# Verbs that leave the object in a receptacle: a look_at task has no such step (carrying it to the lamp is fine).
_PLACE_RE = re.compile(r"\b(?:put|puts|putting|place|places|placed|placing|drop|drops|dropped|leave|set)\b", re.I)
_PRONOUN_RE = re.compile(r"\b(?:it|them|one|both|these|those)\b", re.IGNORECASE)
_DESTINATION_RE = re.compile(r"(?:in/on|in|on|into|onto|inside|to|at)\s+(?:(?:the|a|an)\s+)?$", re.IGNORECASE)
_OBJECT_PHRASE_WORDS = 6
"""At most this many words between a put-verb and the preposition of its destination ("put the clean mug 1 in")."""
_LOOK_BACK = 40
"""Characters before a name in which its preposition is read: the patterns above are anchored there."""
_PHRASE_CHARS = 120
"""Characters between a put-verb and a name beyond which the verb is not its (no eight-word phrase is longer)."""


def _positions(pattern: re.Pattern[str], text: str) -> list[int]:
    return [match.end() for match in pattern.finditer(text)]


class _Places:
    """Where the text's put-verbs end and where its objects start, for binary search."""

    def __init__(self, text: str, objects: Sequence[Name]) -> None:
        self.put = _positions(_PUT_RE, text)
        self.place = _positions(_PLACE_RE, text)
        self.object_starts = [o.start for o in objects]
        self.objects = list(objects)


def _in_location_slot(text: str, name: Name) -> bool:
    return _LOCATION_RE.search(text, max(0, name.start - _LOOK_BACK), name.start) is not None


def _evidence(original: NormalizedText, name: Name, kind: str, means: str, counts: bool) -> IdentityEvidence:
    start, end = original.span(name.start, name.end)
    text = original.original[start:end]
    return IdentityEvidence(kind=kind, text=text, start=start, end=end, means=means, counts=counts)


def _destination(
    text: str, clause: Clause, name: Name, target: str, places: _Places, look: bool
) -> bool:
    """Whether `name` is where the clause puts this task's object: put-verb, the object or a pronoun, a preposition."""
    verb_ends = places.place if look else places.put
    k = bisect_right(verb_ends, name.start) - 1
    if k < 0 or verb_ends[k] < clause.start or name.start - verb_ends[k] > _PHRASE_CHARS:
        return False
    if _DESTINATION_RE.search(text, max(clause.start, name.start - _LOOK_BACK), name.start) is None:
        return False
    between = text[verb_ends[k] : name.start]
    if "," in between or len(between.split()) > _OBJECT_PHRASE_WORDS + 2:
        return False  # the put-verb belongs to an earlier step: "put it in sofa 1, then look in cabinet 1"
    first, last = bisect_left(places.object_starts, verb_ends[k]), bisect_left(places.object_starts, name.start)
    objects_between = places.objects[first:last]
    if any(o.type != target for o in objects_between):
        return False  # it is another object's destination
    return bool(objects_between) or _PRONOUN_RE.search(between) is not None


@lru_cache(maxsize=1 << 14)
def reflection_identity(text: str, task: str) -> ReflectionIdentity:
    """The identity label of one reflection on the ALFWorld task `task` (its task folder, or a game id), read on the
    normalised text; evidence points into `text` as given. Remembered per process: a report labels the same
    reflections for its metrics, its tables and its page."""
    task_type, target, receptacle = task_parts(task)
    step = TASK_STEPS[task_type]
    tools = STEP_TOOLS.get(step, frozenset()) if step else frozenset()
    original = normalize_text(text)
    read = original.text
    reading = ClauseReading(read)
    names = find_names(read)
    evidence: list[IdentityEvidence] = []
    goals, conflicts = [], []
    objects = [n for n in names if n.type in OBJECT_TYPES and not (step == "look" and n.type in LAMPS)]
    places = _Places(read, objects)
    for name in names:
        clause = reading.clause_of(name.start)
        located = _in_location_slot(read, name)
        if name.type == target and not located:
            goals.append(_evidence(original, name, "goal", target, True))
        elif name.type in LAMPS and step != "look":
            if reading.planned(name.start) and not reading.set_aside(name.start, name.end):
                means = f"look under a lamp (task: {step or 'no step'})"
                conflicts.append(_evidence(original, name, "task_type", means, True))
        elif name.type in OBJECT_TYPES and not located and not (step == "look" and name.type in LAMPS):
            planned = reading.planned(name.start, name.end) and not reading.set_aside(name.start, name.end)
            means = name.type if planned else f"{name.type}, not planned (narrated or set aside)"
            (conflicts if planned else evidence).append(_evidence(original, name, "other_goal", means, planned))
        elif located and name.type in RECEPTACLE_TYPES | OBJECT_TYPES:
            if not _destination(read, clause, name, target, places, step == "look") or not reading.planned(name.start):
                continue
            if reading.set_aside(name.start, name.end):
                continue
            if step == "look":
                agrees, means = name.type in LAMPS, f"{name.type} (task: look at it under the {receptacle.lower()})"
            else:
                agrees = name.type == receptacle or name.type in tools or {name.type, receptacle} <= {"Sink", "SinkBasin"}
                means = f"{name.type} (task: {receptacle})"
            (evidence if agrees else conflicts).append(_evidence(original, name, "destination", means, not agrees))
    for other_step, verbs in STEP_VERBS.items():
        if other_step == step:
            continue
        for match in verbs.finditer(read):
            word = Name(type=other_step, start=match.start(), end=match.end(), text=match.group())
            if reading.planned(match.start()) and not reading.set_aside(match.start(), match.end()):
                means = f"{other_step} (task: {step or 'no step'})"
                conflicts.append(_evidence(original, word, "task_type", means, True))
    named_any = bool(goals) or any(e.kind == "other_goal" and e.counts for e in conflicts)
    if not named_any:
        label, deciding = "vacuous", []
    elif conflicts:
        label, deciding = "off_task", conflicts
    else:
        label, deciding = "on_task", goals
    chosen = {id(e) for e in deciding}
    undecided = [e.model_copy(update={"counts": False}) for e in (goals + conflicts) if id(e) not in chosen]
    ordered = sorted([*deciding, *undecided, *evidence], key=lambda e: (e.start, e.end))
    return ReflectionIdentity(label=label, rule=RULE, evidence=ordered)


def record_identity(record: TrialRecord) -> ReflectionIdentity | None:
    """The identity of a record's reflection; None when it wrote none."""
    return None if record.reflection is None else reflection_identity(record.reflection, record.task_id)


def line_identity(item: dict[str, object]) -> ReflectionIdentity:
    """`reflexion-identity`'s line {"task": "<ALFWorld task folder>", "text"}."""
    task = item.get("task")
    if not isinstance(task, str):
        raise ValueError("an alfworld line needs 'task': the task folder, e.g. pick_cool_then_place_in_recep-Tomato-None-Microwave-10.")
    return reflection_identity(str(item["text"]), task)
