"""The rule counts, as ExpeL's `update_rules` keeps them: a first pass screens the operations against the rules as
they were, a second applies REMOVE, AGREE, EDIT and ADD in that order; rules at 0 or below go, the rest are sorted
by count (a stable sort: equal counts keep their order)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.records.insights import Critique, Operation, Rule, RuleChange

ADD_COUNT = 2
"""An added rule starts at 2."""
REMOVE_FULL = 3
"""What a REMOVE takes once the list is full (1 otherwise)."""
ORDER = ("REMOVE", "AGREE", "EDIT", "ADD")
"""ExpeL's order of application: an EDIT comes after the REMOVE and AGREE that find rules by their old text."""


@dataclass(frozen=True)
class Source:
    """Where a change comes from, for the rule's history."""

    step: int
    critique: Critique
    raw_answer: str


@dataclass
class _Entry:
    text: str
    count: int
    changes: list[RuleChange] = field(default_factory=list)


def _first_within(texts: Sequence[str], text: str) -> int | None:
    # ExpeL's retrieve_rule_index: the first rule whose whole text occurs in the operation's text, so an operation
    # may name a rule with words around it, and the rule number it gives is not read.
    return next((i for i, rule in enumerate(texts) if rule in text), None)


def screen(texts: Sequence[str], operations: Sequence[Operation]) -> list[tuple[Operation, Operation]]:
    """ExpeL's first pass: (as parsed, as counted) for each operation it keeps.

    ADD is dropped when its text contains an existing rule; AGREE and REMOVE when it contains none; EDIT counts as
    AGREE of the first rule its text contains, else it is dropped without a number or past the end of the list
    (EDIT 0 stays, and edits the last rule). One departure: EDIT 0 on an empty list, where ExpeL's update_rules
    fails (it indexes rules[-1]), is dropped like the other operations that name no rule, so one answer cannot end
    a build, its resumption and its report for good.
    """
    kept = []
    for operation in operations:
        match = _first_within(texts, operation.text)
        if operation.kind == "ADD":
            if match is None:
                kept.append((operation, operation))
        elif operation.kind == "EDIT":
            if match is not None:
                kept.append((operation, Operation(kind="AGREE", number=match + 1, text=texts[match])))
            elif operation.number is not None and operation.number <= len(texts) and texts:
                kept.append((operation, operation))
        elif match is not None:
            kept.append((operation, operation))
    return kept


def _record(entry: _Entry, source: Source | None, parsed: Operation, applied: Operation, delta: int,
            previous: str | None = None) -> None:
    entry.count += delta
    if source is not None:
        entry.changes.append(RuleChange(
            step=source.step, critique=source.critique, raw_answer=source.raw_answer, operation=parsed,
            applied=applied, delta=delta, count=entry.count, previous_text=previous,
        ))


def update(rules: Sequence[Rule], operations: Sequence[Operation], list_full: bool,
           source: Source | None = None) -> tuple[list[Rule], list[Rule]]:
    """The rules after the operations, and the rules they dropped; with a source, each change joins its rule's
    history."""
    entries = [_Entry(rule.text, rule.count, list(rule.changes)) for rule in rules]
    plan = screen([rule.text for rule in rules], operations)
    for kind in ORDER:
        for parsed, applied in plan:
            if applied.kind != kind:
                continue
            if kind == "ADD":
                entries.append(_Entry(applied.text, 0))
                _record(entries[-1], source, parsed, applied, ADD_COUNT)
            elif kind == "EDIT":
                assert applied.number is not None and entries  # screened
                # EDIT 0 reaches entries[-1], the last rule, as in ExpeL.
                entry = entries[applied.number - 1]
                previous, entry.text = entry.text, applied.text
                _record(entry, source, parsed, applied, 1, previous)
            else:
                # REMOVE and AGREE come before any EDIT, so the texts they are found by are still the screened ones.
                index = _first_within([entry.text for entry in entries], applied.text)
                assert index is not None
                delta = 1 if kind == "AGREE" else -(REMOVE_FULL if list_full else 1)
                _record(entries[index], source, parsed, applied, delta)
    built = [Rule(text=entry.text, count=entry.count, changes=entry.changes) for entry in entries]
    kept = sorted((rule for rule in built if rule.count > 0), key=lambda rule: rule.count, reverse=True)
    return kept, [rule for rule in built if rule.count <= 0]


def update_rules(rules: Sequence[Rule], operations: Sequence[Operation], list_full: bool) -> list[Rule]:
    """ExpeL's update_rules: ADD +2, AGREE +1, EDIT +1 (new text), REMOVE -1 (-3 when `list_full`); rules at 0 or
    below dropped, the rest sorted by count, ties in their order."""
    return update(rules, operations, list_full)[0]
