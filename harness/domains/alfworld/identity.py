"""Which ALFWorld task a reflection is about: its goal object, where it puts it, and which step it plans.

A reflection is read clause by clause (sentences, lines, semicolons). A name of an object type (`vocabulary`) is a goal
when the clause plans it ("I should have taken", "I will", "my plan was to find", "tried to", an imperative step,
"instead of heating mug 1"), not when the clause narrates what happened ("I took the spraybottle", "you see a vase")
or sets it aside ("before taking the spraybottle", "the knife instead of the butterknife"). In a planned clause, where
the plan puts this task's object ("put it in countertop 1") and which task step it plans (heat, cool, clean, a lamp)
are checked against the task folder.

- on_task: this task's object is named, no other object is planned as a goal, and no planned destination or step
  contradicts the task;
- off_task: another object is planned as a goal, or this object is planned into another receptacle or through
  another task type's step;
- vacuous: no object is named at all (generic advice, receptacles only, empty or cut off).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

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
from harness.records import TrialRecord
from harness.records.identity import IdentityEvidence, ReflectionIdentity

RULE = "alfworld/1"
IDENTITY_NOTE = (
    "ALFWorld task identity: on_task names the task's object and plans no other object, receptacle or task step; "
    "off_task plans another object, or this one into another receptacle or through another task type's step; "
    "vacuous names no object."
)

_CLAUSE_END_RE = re.compile(r"[.!?;\n]+|\s->\s")
# Words that make a clause a plan: what the agent meant to do, or will do.
_PLAN_RE = re.compile(
    r"\b(?:plan|planned|should|will|would|need|needs|needed|must|have to|has to|had to|try|tries|tried|trying|"
    r"attempt|attempted|attempting|going to|next|task|goal|supposed|want|wanted|intend|intended|aim|in order to|"
    r"so that|i'll|let me|make sure|ensure|remember|focus|look for|looking for|search for|searching for|find|"
    r"locate|instead of|rather than|new plan)\b",
    re.IGNORECASE,
)
# A step written as an instruction ("Take saltshaker 1 from cabinet 1 first, then ...").
_IMPERATIVE_RE = re.compile(
    r"^\W*(?:(?:new plan|plan|next|then|and|first|finally|also)\W+)*(?:find|take|pick|grab|get|put|place|go|open|"
    r"heat|cool|clean|wash|rinse|use|examine|look|search|bring|carry|move|check|turn)\b",
    re.IGNORECASE,
)
# A quoted action or observation of the episode: what happened, not a plan.
_QUOTE_RE = re.compile(r"^\W*(?:failed step\b|you see\b|on the\b|in the\b|>)", re.IGNORECASE)
_SET_ASIDE_RE = re.compile(
    r"\b(?:not|never|no|without|wrong|wrongly|mistake|mistaken|mistakenly|incorrect|incorrectly|accidentally|"
    r"before|avoid|except|other than|instead|unrelated|irrelevant)\b|n't\b",
    re.IGNORECASE,
)
_INSTEAD_RE = re.compile(r"\b(?:instead of|rather than)\b", re.IGNORECASE)
_SET_ASIDE_WINDOW = 5
"""Words before a name in which a negation or "before" sets it aside."""
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


class _Clause(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: int
    end: int
    text: str


def _clauses(text: str) -> list[_Clause]:
    clauses, start = [], 0
    for boundary in _CLAUSE_END_RE.finditer(text):
        clauses.append(_Clause(start=start, end=boundary.start(), text=text[start : boundary.start()]))
        start = boundary.end()
    clauses.append(_Clause(start=start, end=len(text), text=text[start:]))
    return [c for c in clauses if c.text.strip()]


def _planned(clause: _Clause, position: int) -> bool:
    """Whether the clause plans what stands at `position` (an offset into the whole text)."""
    before = clause.text[: position - clause.start]
    if _QUOTE_RE.match(clause.text):
        return False
    return _PLAN_RE.search(before) is not None or _IMPERATIVE_RE.match(clause.text) is not None


def _set_aside(clause: _Clause, name: Name) -> bool:
    """A name the clause takes back: followed by "instead of", or under a negation or "before" just before it."""
    before = clause.text[: name.start - clause.start]
    after = clause.text[name.end - clause.start :]
    instead_before = list(_INSTEAD_RE.finditer(before))
    if instead_before:
        return False  # "instead of heating mug 1": what comes after "instead of" is what was meant
    if _INSTEAD_RE.search(after):
        return True
    window = " ".join(before.split()[-_SET_ASIDE_WINDOW:])
    return _SET_ASIDE_RE.search(window) is not None


def _in_location_slot(text: str, name: Name) -> bool:
    return _LOCATION_RE.search(text[max(0, name.start - 40) : name.start]) is not None


def _clause_of(clauses: Sequence[_Clause], position: int) -> _Clause:
    for clause in clauses:
        if clause.start <= position <= clause.end:
            return clause
    return clauses[-1]


def _evidence(name: Name, kind: str, means: str, counts: bool) -> IdentityEvidence:
    return IdentityEvidence(kind=kind, text=name.text, start=name.start, end=name.end, means=means, counts=counts)


def _destination(
    text: str, clause: _Clause, name: Name, target: str, others: Sequence[Name], verbs_re: re.Pattern[str] = _PUT_RE
) -> bool:
    """Whether `name` is where the clause puts this task's object: put-verb, the object or a pronoun, a preposition."""
    before = text[clause.start : name.start]
    verbs = list(verbs_re.finditer(before))
    if not verbs or _DESTINATION_RE.search(before) is None:
        return False
    between = before[verbs[-1].end() :]
    if "," in between or len(between.split()) > _OBJECT_PHRASE_WORDS + 2:
        return False  # the put-verb belongs to an earlier step: "put it in sofa 1, then look in cabinet 1"
    objects_between = [o for o in others if clause.start + verbs[-1].end() <= o.start < name.start]
    if any(o.type != target for o in objects_between):
        return False  # it is another object's destination
    return bool(objects_between) or _PRONOUN_RE.search(between) is not None


def reflection_identity(text: str, task: str) -> ReflectionIdentity:
    """The identity label of one reflection on the ALFWorld task `task` (its task folder, or a game id)."""
    task_type, target, receptacle = task_parts(task)
    step = TASK_STEPS[task_type]
    tools = STEP_TOOLS.get(step, frozenset()) if step else frozenset()
    clauses = _clauses(text)
    names = find_names(text)
    evidence: list[IdentityEvidence] = []
    goals, conflicts = [], []
    objects = [n for n in names if n.type in OBJECT_TYPES and not (step == "look" and n.type in LAMPS)]
    for name in names:
        clause = _clause_of(clauses, name.start)
        located = _in_location_slot(text, name)
        if name.type == target and not located:
            goals.append(_evidence(name, "goal", target, True))
        elif name.type in LAMPS and step != "look":
            if _planned(clause, name.start) and not _set_aside(clause, name):
                conflicts.append(_evidence(name, "task_type", f"look under a lamp (task: {step or 'no step'})", True))
        elif name.type in OBJECT_TYPES and not located and not (step == "look" and name.type in LAMPS):
            planned = _planned(clause, name.start) and not _set_aside(clause, name)
            means = name.type if planned else f"{name.type}, not planned (narrated or set aside)"
            (conflicts if planned else evidence).append(_evidence(name, "other_goal", means, planned))
        elif located and name.type in RECEPTACLE_TYPES | OBJECT_TYPES:
            verbs_re = _PLACE_RE if step == "look" else _PUT_RE
            if not _destination(text, clause, name, target, objects, verbs_re) or not _planned(clause, name.start):
                continue
            if _set_aside(clause, name):
                continue
            if step == "look":
                agrees, means = name.type in LAMPS, f"{name.type} (task: look at it under the {receptacle.lower()})"
            else:
                agrees = name.type == receptacle or name.type in tools or {name.type, receptacle} <= {"Sink", "SinkBasin"}
                means = f"{name.type} (task: {receptacle})"
            (evidence if agrees else conflicts).append(_evidence(name, "destination", means, not agrees))
    for other_step, verbs in STEP_VERBS.items():
        if other_step == step:
            continue
        for match in verbs.finditer(text):
            clause = _clause_of(clauses, match.start())
            word = Name(type=other_step, start=match.start(), end=match.end(), text=match.group())
            if _planned(clause, match.start()) and not _set_aside(clause, word):
                conflicts.append(_evidence(word, "task_type", f"{other_step} (task: {step or 'no step'})", True))
    named_any = bool(goals) or any(e.kind == "other_goal" and e.counts for e in conflicts)
    if not named_any:
        label, deciding = "vacuous", []
    elif conflicts:
        label, deciding = "off_task", conflicts
    else:
        label, deciding = "on_task", goals
    undecided = [e.model_copy(update={"counts": False}) for e in (goals + conflicts) if e not in deciding]
    ordered = sorted([*deciding, *undecided, *evidence], key=lambda e: (e.start, e.end))
    return ReflectionIdentity(label=label, rule=RULE, evidence=ordered)


def record_identity(record: TrialRecord) -> ReflectionIdentity | None:
    """The identity of a record's reflection; None when it wrote none."""
    return None if record.reflection is None else reflection_identity(record.reflection, record.task_id)


def line_identity(item: dict[str, object]) -> ReflectionIdentity:
    """`python -m harness.metrics.identity`'s line {"task": "<ALFWorld task folder>", "text"}."""
    task = item.get("task")
    if not isinstance(task, str):
        raise ValueError("an alfworld line needs 'task': the task folder, e.g. pick_cool_then_place_in_recep-Tomato-None-Microwave-10.")
    return reflection_identity(str(item["text"]), task)
