"""What an ALFWorld reflection claims about its trial, read deterministically (issue 49, rule alfworld-claims/1).

The text is normalised (harness/domains/normalized_text.py) and read as tests/fixtures/diagnosis/alfworld/GUIDELINE.md
tells a reader to:
- the steps it points at: the grounded template's FAILED STEP (its quoted action), any action of the trial quoted
  whole, an action narrated in its own words ("I went to cabinet 2", "took the vase from dresser 1"; "opened it" for
  the last place named before it in the sentence), "step N", "the third step", "after going to X" (the step after the
  one that went to X). An action taken at several steps is ambiguous: the claim keeps every candidate and points at
  none of them, unless its sentence says which ("the second time", "at the end"). Plans ("I will", "should",
  "next"), and actions set aside ("before taking", "instead of taking" in a narration) point at no step;
- the cause it names (diagnosis_phrases.CAUSE_PATTERNS, the first that matches), or none;
- confabulated claims: an action narrated or quoted as taken that no step took; an action narrated as done that the
  game answered "Nothing happens." (with no word of failure beside it); a FAILED STEP answer the game never gave; a
  thing said to be (or not to be) somewhere the trial never showed it so; a numbered thing that neither the room
  nor any answer names (outside a quoted or narrated action of the trial, and outside "does not exist").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from harness.domains.alfworld import diagnosis_phrases as phrases
from harness.domains.alfworld.diagnosis_steps import NAME_RE, names_in, parse_command, shown_at, shown_empty, type_of
from harness.domains.alfworld.signals import is_thought
from harness.domains.alfworld.vocabulary import OBJECT_TYPES, find_names
from harness.domains.normalized_text import NormalizedText, normalize_text
from harness.records import TrialRecord
from harness.records.alfworld import NOTHING_HAPPENS
from harness.records.diagnosis import Claim, ClaimKind, GroundTruth, ReflectionClaims
from harness.records.step import Step

RULE = "alfworld-claims/2"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_PRONOUNS = {"it", "them", "one"}


def _flat(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


@dataclass(frozen=True)
class _Reference:
    """A place in the text that names an action: how it stands there (quoted, narrated, planned, set_aside), what it
    was read as, and the trial's steps that took it."""

    start: int
    end: int
    mode: str
    means: str
    steps: tuple[int, ...]


class _Trial:
    """The trial's steps as facts to check a reflection against."""

    def __init__(self, steps: Sequence[Step], room: str) -> None:
        self.steps = list(steps)
        self.moves = [(n, s) for n, s in enumerate(steps, start=1) if not is_thought(s.action) and s.action.strip()]
        self.commands = {n: parse_command(s.action) for n, s in self.moves}
        actions = [s.action for _, s in self.moves]
        answers = [s.observation for _, s in self.moves]
        self.seen = set(names_in(room)) | {name for answer in answers for name in names_in(answer)}
        self.shown = shown_at(actions, answers)
        self.empty = shown_empty(actions, answers)

    def taking(self, action: str) -> tuple[int, ...]:
        wanted = _flat(action)
        return tuple(n for n, s in self.moves if _flat(s.action) == wanted)

    def matching(self, kind: str, thing: str | None, place: str | None) -> tuple[int, ...]:
        def fits(said: str | None, done: str | None) -> bool:
            if said is None or said in _PRONOUNS:
                return True
            return done is not None and (said == done if " " in said else said == done.split(" ")[0])

        return tuple(
            n for n, c in self.commands.items() if c.kind == kind and fits(thing, c.thing) and fits(place, c.place)
        )

    def after(self, steps: Sequence[int]) -> tuple[int, ...]:
        numbers = [n for n, _ in self.moves]
        return tuple(next((m for m in numbers if m > step), step) for step in steps)


def _clause_start(low: str, position: int) -> int:
    ends = [m.end() for m in phrases.CLAUSE_END_RE.finditer(low, 0, position)]
    return ends[-1] if ends else 0


def _clause(low: str, position: int) -> str:
    start = _clause_start(low, position)
    following = phrases.CLAUSE_END_RE.search(low, position)
    return low[start : following.start() if following else len(low)]


def _mode(low: str, position: int) -> str:
    """narrated, planned or set_aside: how the clause holds the words at `position`."""
    prefix = low[_clause_start(low, position) : position]
    instead = list(phrases.INSTEAD_RE.finditer(prefix))
    if instead:
        return "narrated" if phrases.FORWARD_RE.search(prefix, 0, instead[-1].start()) else "set_aside"
    if phrases.SET_ASIDE_RE.search(prefix):
        return "set_aside"
    planned = phrases.FORWARD_RE.search(prefix) or phrases.IMPERATIVE_RE.match(prefix + low[position:position + 12])
    return "planned" if planned else "narrated"


def _known(name: str | None) -> bool:
    return name is None or name in _PRONOUNS or type_of(name) is not None


def _place_before(low: str, position: int) -> str | None:
    """The last numbered receptacle named in the sentence before `position` ('the safe 1, so I opened it')."""
    start = _clause_start(low, position)
    names = [m.group(0) for m in NAME_RE.finditer(low, start, position) if _is_place(m.group(0))]
    return names[-1] if names else None


def _is_place(name: str) -> bool:
    kind = type_of(name)
    return kind is not None and kind not in OBJECT_TYPES


def _occurrence(low: str, ref: _Reference) -> tuple[int, ...]:
    """The one step of an ambiguous reference its sentence picks ('the second time', 'at the end'), else all."""
    sentence_start = _clause_start(low, ref.start)
    following = phrases.CLAUSE_END_RE.search(low, ref.end)
    match = phrases.OCCURRENCE_RE.search(low, sentence_start, following.start() if following else len(low))
    if match is None or len(ref.steps) < 2:
        return ref.steps
    word = match.group("ordinal")
    if match.group("end") or word in ("last", "final"):
        return ref.steps[-1:]
    index = phrases.ORDINAL[word] - 1
    return ref.steps[index : index + 1] or ref.steps


def _references(low: str, trial: _Trial) -> list[_Reference]:
    found: list[_Reference] = []

    def free(start: int, end: int) -> bool:
        return all(end <= r.start or start >= r.end for r in found)

    for match in phrases.FAILED_STEP_RE.finditer(low):
        quoted = match.group("action")
        steps = trial.taking(quoted)
        if not steps:  # the action inside a longer quote, as the template's parser finds it
            inside = [s.action for _, s in trial.moves if re.search(rf"(?<!\w){re.escape(_flat(s.action))}(?!\w)", quoted)]
            steps = trial.taking(max(inside, key=len)) if inside else ()
        found.append(_Reference(match.start(), match.end(), "quoted", quoted, steps))
    for match in phrases.AFTER_GOING_RE.finditer(low):
        place = match.group("place")
        if free(match.start(), match.end()) and _known(place):
            steps = trial.after(trial.matching("go", None, place))
            found.append(_Reference(match.start(), match.end(), "narrated", f"the step after go to {place}", steps))
    # Text the game does not know is quoted outside a FAILED STEP only when short: a long one is the agent's own prose.
    commands = {_flat(s.action) for n, s in trial.moves if trial.commands[n].kind != "other" or len(s.action.split()) <= 8}
    for action in sorted(commands, key=len, reverse=True):
        for match in re.finditer(rf"(?<!\w){re.escape(action)}(?!\w)", low):
            if free(match.start(), match.end()):
                found.append(_Reference(match.start(), match.end(), _mode(low, match.start()), action, trial.taking(action)))
    for kind, pattern in phrases.ACTION_PATTERNS:
        for match in pattern.finditer(low):
            groups = match.groupdict()
            thing, place = groups.get("thing"), groups.get("place")
            if kind in ("go", "open", "close", "examine") and place in _PRONOUNS:
                place = _place_before(low, match.start())
            if place is None and kind in ("go", "open", "close", "examine"):
                continue
            if not (free(match.start(), match.end()) and _known(thing) and _known(place)):
                continue
            specific = (thing not in _PRONOUNS and thing is not None) or (place not in _PRONOUNS and place is not None)
            if not specific:
                continue
            means = " ".join(w for w in (kind, thing, place) if w)
            steps = trial.matching(kind, thing, place)
            found.append(_Reference(match.start(), match.end(), _mode(low, match.start()), means, steps))
    return sorted(found, key=lambda r: r.start)


def _numbered_steps(low: str, count: int) -> list[tuple[int, int, int]]:
    """(start, end, step) of 'step N' and 'the third step' within the trial's length."""
    found = [(m.start(), m.end(), int(m.group("number"))) for m in phrases.STEP_NUMBER_RE.finditer(low)]
    for match in phrases.ORDINAL_RE.finditer(low):
        word = match.group("ordinal")
        found.append((match.start(), match.end(), count if word in ("last", "final") else phrases.ORDINAL[word]))
    return [(s, e, n) for s, e, n in found if 1 <= n <= count]


class _Reading:
    """One reflection read against one trial: every claim, in text order."""

    def __init__(self, text: str, trial: _Trial) -> None:
        self.original: NormalizedText = normalize_text(text)
        self.low = self.original.text.translate(_ASCII_LOWER)
        self.trial = trial
        self.claims: list[Claim] = []

    def add(self, kind: ClaimKind, start: int, end: int, means: str, steps: Sequence[int] = (), confabulated: bool = False) -> None:
        first, last = self.original.span(start, end)
        self.claims.append(Claim(kind=kind, text=self.original.original[first:last], start=first, end=last,
                                 means=means, steps=list(steps), confabulated=confabulated))

    def actions(self) -> list[_Reference]:
        references = _references(self.low, self.trial)
        for ref in references:
            if ref.mode in ("planned", "set_aside"):
                continue
            if not ref.steps:
                self.add("action", ref.start, ref.end, f"{ref.means}: no step took it", confabulated=True)
                continue
            ref = _Reference(ref.start, ref.end, ref.mode, ref.means, _occurrence(self.low, ref))
            self.add("step", ref.start, ref.end, ref.means, ref.steps)
            answers = [self.trial.steps[n - 1].observation for n in ref.steps]
            done_for_nothing = all(a == NOTHING_HAPPENS for a in answers) and ref.mode == "narrated"
            if done_for_nothing and not ref.means.startswith("the step after"):
                if not phrases.FAILURE_RE.search(_clause(self.low, ref.start)):
                    self.add("observation", ref.start, ref.end, f"{ref.means}: told as done; the game answered "
                             f"{NOTHING_HAPPENS!r}", ref.steps, confabulated=True)
        for start, end, step in _numbered_steps(self.low, len(self.trial.steps)):
            self.add("step", start, end, f"step {step}", [step])
        return references

    def failed_step_answers(self) -> None:
        for match in phrases.FAILED_STEP_RE.finditer(self.low):
            quoted, action = match.group("observation"), match.group("action")
            steps = self.trial.taking(action)
            if not quoted or not steps:
                continue
            said = _flat(quoted)
            given = [_flat(self.trial.steps[n - 1].observation) for n in steps]
            if not any(said == answer or (len(said) >= 10 and answer.startswith(said)) for answer in given):
                self.add("observation", match.start("observation"), match.end("observation"),
                         f"{quoted!r}: not what the game answered to {action!r}", steps, confabulated=True)

    def names(self, references: Sequence[_Reference]) -> None:
        taken = [(r.start, r.end) for r in references if r.steps and r.mode in ("quoted", "narrated")]
        for match in NAME_RE.finditer(self.low):
            name = match.group(0)
            if type_of(name) is None or name in self.trial.seen:
                continue
            if any(s <= match.start() and match.end() <= e for s, e in taken):
                continue
            if phrases.NOT_EXISTING_RE.search(_clause(self.low, match.start())):
                continue
            kind: ClaimKind = "object" if type_of(name) in OBJECT_TYPES else "receptacle"
            self.add(kind, match.start(), match.end(), f"{name}: neither the room nor any answer names it",
                     confabulated=True)

    def places(self) -> None:
        places = [(m.start(), m.group(0)) for m in NAME_RE.finditer(self.low) if type_of(m.group(0)) is not None]
        for thing in find_names(self.low):
            if thing.type not in OBJECT_TYPES or _mode(self.low, thing.start) != "narrated":
                continue
            clause_start = _clause_start(self.low, thing.start)
            number = re.match(r" (\d+)\b", self.low[thing.end :])
            end = thing.end + (number.end() if number else 0)
            place = next(((s, n) for s, n in places if s >= end), None)
            if place is None or self.low[end : place[0]].count(" ") > 5:
                continue
            between = self.low[end : place[0]]
            verb = re.search(r"\b(?:was|were|is|are|found|located)\b", between)
            if not phrases.LOCATED_RE.match(between) or not (verb or phrases.SAW_RE.search(self.low, clause_start, thing.start)):
                continue
            if phrases.NOT_EXISTING_RE.search(_clause(self.low, thing.start)):
                continue
            instance = f"{thing.type.lower()} {number.group(1)}" if number else None
            held = self.trial.shown.get(place[1], set())
            true = any(type_of(n) == thing.type and (instance is None or n == instance) for n in held)
            self.add("observation", thing.start, place[0] + len(place[1]),
                     f"{instance or thing.type} at {place[1]}" + ("" if true else ": never shown there"),
                     confabulated=not true)
        for match in phrases.EMPTY_RE.finditer(self.low):
            empty = match.group("place")
            if type_of(empty) is None or _mode(self.low, match.start()) != "narrated":
                continue
            fits = [p for p in self.trial.empty if p == empty or (" " not in empty and p.split(" ")[0] == empty)]
            self.add("observation", match.start(), match.end(), f"{empty} empty" + ("" if fits else ": never shown so"),
                     confabulated=not fits)

    def cause(self) -> str | None:
        for category, pattern in phrases.CAUSE_PATTERNS:
            match = pattern.search(self.low)
            if match:
                self.add("cause", match.start(), match.end(), category)
                return category
        return None


def reflection_claims(text: str, steps: Sequence[Step], room: str) -> ReflectionClaims:
    """What `text` claims about the trial `steps`, played in the room whose opening text is `room`."""
    reading = _Reading(text, _Trial(steps, room))
    references = reading.actions()
    reading.failed_step_answers()
    reading.names(references)
    reading.places()
    cause = reading.cause()
    claims = sorted(reading.claims, key=lambda c: (c.start, c.end))
    step_claims = [c for c in claims if c.kind == "step"]
    claimed = sorted({c.steps[0] for c in step_claims if len(c.steps) == 1})
    return ReflectionClaims(
        rule=RULE, claimed_steps=claimed, ambiguous=any(len(c.steps) > 1 for c in step_claims), cause=cause,
        claims=claims,
    )


def record_claims(record: TrialRecord, truth: GroundTruth) -> ReflectionClaims:
    """The spec's `claims`: what a record's reflection claims (none without a reflection); the room is the one the
    ground truth's replay opened with."""
    room = truth.facts.get("room", "")
    return reflection_claims(record.reflection or "", record.trajectory, room if isinstance(room, str) else "")

