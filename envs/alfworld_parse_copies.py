"""Copies of memoized textworld parses that copy only what textworld changes in them.

The memos (envs/alfworld_memos.py) hand each caller its own copy of a parse. A deep copy was an eighth of a replayed
ALFWorld run's CPU, though most of what it copied is never changed: textworld.logic's predicates and
placeholders are values (their hash is fixed when they are made), and textgen only sets `context` on the symbols it
derives. Anything else is deep-copied as before.
"""

from __future__ import annotations

import copy
from typing import Any


def copy_condition_parse(parsed: Any) -> Any:
    """A textworld.logic parse: a conjunctive query (a list of predicates) in a new list of the same predicates."""
    from textworld.logic import Predicate

    if isinstance(parsed, list) and all(type(item) is Predicate for item in parsed):
        return list(parsed)
    return copy.deepcopy(parsed)


def copy_template_parse(parsed: Any) -> Any:
    """A textgen parse (a list of symbols, nested through `expression` and `symbol`): new symbol objects and lists
    all the way down, sharing the strings and with each symbol's own empty context."""
    from textworld.envs.pddl.textgen import Symbol

    def copied(value: Any) -> Any:
        if isinstance(value, list):
            return [copied(item) for item in value]
        if isinstance(value, Symbol):
            if value.context:  # a parse carries none; one that does is copied whole
                return copy.deepcopy(value)
            clone = copy.copy(value)
            for name, attribute in vars(value).items():
                if isinstance(attribute, (list, Symbol)):
                    setattr(clone, name, copied(attribute))
            clone.context = {}
            return clone
        if isinstance(value, str) or value is None:
            return value
        return copy.deepcopy(value)

    return copied(parsed)
