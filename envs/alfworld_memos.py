"""Two pure functions of the ALFWorld engine, computed once per process for each input.

textworld's PddlEnv builds a `PddlState` in `load` and again in `reset`, and each one runs fast_downward's
PDDL-to-SAS translation of the game twice (plain, and optimized for replanning): four translations of the same
text per reset, three quarters of its time. textworld's text generation parses every template it derives
(an action's command, its feedback rule) with tatsu, at every step, though a run uses a few dozen templates.
Both results depend on their text arguments only, so the first result is reused: translations for the reset
after `load` and every later trial of the same game, parses for every step after the first.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

CACHED_TRANSLATIONS = 128
"""Translations kept, two per game: a run's concurrent games fit; an older game is translated again."""

_lock = threading.Lock()
_installed: dict[str, Any] = {}


class Memo:
    """A bounded memo of a function of text arguments, keyed by their SHA-256; `copies` returns deep copies,
    for results the caller mutates (textgen's derivations set a context on each symbol)."""

    def __init__(self, function: Callable[..., Any], capacity: int | None = None, copies: bool = False) -> None:
        self._function = function
        self._capacity = capacity
        self._copies = copies
        self._results: OrderedDict[str, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = hashlib.sha256(repr((args, sorted(kwargs.items()))).encode()).hexdigest()
        if key in self._results:
            self._results.move_to_end(key)
            self.hits += 1
            result = self._results[key]
        else:
            self.misses += 1
            result = self._function(*args, **kwargs)
            self._results[key] = result
            if self._capacity is not None and len(self._results) > self._capacity:
                self._results.popitem(last=False)
        return copy.deepcopy(result) if self._copies else result


def install_memos() -> dict[str, Memo]:
    """Route textworld's translation and template parsing through process-wide memos (idempotent).

    Callers hold the engine lock: neither fast_downward nor tatsu's parsers are thread-safe, nor are the memos.
    The translated task is only read by PddlState (actions, objects, init facts, types), so one result backs
    every state built from the same game; parsed templates are copied, as textgen mutates what it derives.
    """
    import fast_downward
    from textworld.envs.pddl import textgen

    with _lock:
        if not _installed:
            translation = Memo(fast_downward.pddl2sas, capacity=CACHED_TRANSLATIONS)
            parse = Memo(textgen._parse_and_convert, copies=True)
            fast_downward.pddl2sas = translation
            textgen._parse_and_convert = parse
            _installed.update(translation=translation, parse=parse)
    return dict(_installed)
