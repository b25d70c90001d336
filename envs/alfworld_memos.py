"""textworld's engine made cheaper where its text cannot change: pure functions computed once per process for
each input, and one copy that copied what is never changed.

textworld's PddlEnv builds a `PddlState` in `load` and again in `reset`, and each one runs fast_downward's
PDDL-to-SAS translation of the game twice (plain, and optimized for replanning): four translations of the same
text per reset, three quarters of its time. `load` also parses the game's grammar document (its actions and text
rules) with tatsu: 25 ms of a later reset's 44. textworld's text generation parses every template it derives (an
action's command, its feedback rule) with tatsu, and every condition in them with textworld.logic's tatsu grammar,
at every step, though a run uses a few dozen templates. These results depend on their text arguments only, so the
first result is reused: translations and the grammar document for the reset after `load` and every later trial of
the same game, parses for every step after the first. And textgen deep-copies a context's variables and mapping for
every symbol it derives, though it only adds entries to them (see `copy_context_keeping_values`).

A game's first reset in a process still translates it. With a translations folder configured
(`env.translation_cache`), each translation is also kept on disk, keyed by the texts and the translator's
version, so another process (a second engine worker, a resumed run, the next run, a sweep's other jobs) reads
it instead. The files are pickles written by this code: keep the folder where only you write.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from envs.alfworld_parse_copies import copy_condition_parse, copy_template_parse
from envs.alfworld_replanning import deferring_replanning
from envs.persisted_file import CountedPickles

CACHED_TRANSLATIONS = 128
"""Translations kept (one a game, two for a planner's engine): a run's concurrent games fit; an older game is
translated again."""
CACHED_GAME_GRAMMARS = 128
"""Parsed grammar documents kept (one a game; 78 distinct among the 134 shipped games): a run's concurrent games fit."""
CACHED_LOGIC_PARSES = 4096
"""textworld.logic parses kept: every condition of the grammar and the rules, with room for game-specific text."""

_lock = threading.Lock()
_installed: dict[str, Any] = {}
_translations_dir: list[Path | None] = [None]


class Memo:
    """A bounded memo of a function of text arguments, keyed by their SHA-256; `copies` makes each caller's copy,
    for results the caller mutates (textgen's derivations set a context on each symbol)."""

    def __init__(
        self, function: Callable[..., Any], capacity: int | None = None, copies: Callable[[Any], Any] | None = None
    ) -> None:
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
        return self._copies(result) if self._copies is not None else result


class PersistedTranslations(CountedPickles):
    """fast_downward's translation kept in `directory`, one pickle per (texts, options, translator version)."""

    def __init__(self, translate: Callable[..., Any], directory: Path) -> None:
        super().__init__(directory)
        self._translate = translate
        versions = [importlib.metadata.version(name) for name in ("fast-downward-textworld", "textworld")]
        self._version = "/".join(versions)

    def translation_path(self, domain: str, problem: str, optimize: bool = False) -> Path:
        """Where the translation of these texts is kept."""
        return self.path(self._version, optimize, domain, problem)

    def __call__(self, domain: str, problem: str, verbose: bool = False, optimize: bool = False) -> Any:
        translate = partial(self._translate, domain, problem, verbose=verbose, optimize=optimize)
        return self.get(translate, self._version, optimize, domain, problem)


def keep_translations_in(directory: Path | None) -> None:
    """Where this process keeps translations on disk (None: in memory only); before its first engine starts."""
    _translations_dir[0] = directory


def translations_folder() -> Path | None:
    """Where this process keeps translations on disk (None: in memory only)."""
    return _translations_dir[0]


def copy_context_keeping_values(context: dict[str, Any]) -> dict[str, Any]:
    """textgen's `copy_context` with new `variables` and `mapping` dicts over the same values.

    textgen only adds entries to a copied context's dicts (`query` binds a condition's placeholders); the values,
    entity infos and logic variables, are only read, by the grammar's expressions (`o.name`, `r.indefinite`, string
    sums over them in every game). Deep-copying them was half of a step's CPU.
    """
    return {
        "state": context["state"],
        "facts": context["facts"],
        "variables": dict(context["variables"]),
        "mapping": dict(context["mapping"]),
        "entity_infos": context["entity_infos"],
    }


def memos_installed() -> bool:
    """Whether this process plays through the memos (install_memos has run)."""
    return bool(_installed)


def install_memos() -> dict[str, Any]:
    """Route textworld's translation, grammar document, template and condition parsing through process-wide memos,
    and textgen's context copies through `copy_context_keeping_values` (idempotent).

    Callers hold the engine lock: neither fast_downward nor tatsu's parsers are thread-safe, nor are the memos.
    The translated task is only read by PddlState (actions, objects, init facts, types), so one result backs
    every state built from the same game; parses are copied, as textgen mutates what it derives, copying only
    what it mutates (envs/alfworld_parse_copies.py). The optimized
    translation is made only when an engine loads it (envs/alfworld_replanning.py).
    """
    import fast_downward
    import textworld.logic
    from textworld.envs.pddl import logic as pddl_logic
    from textworld.envs.pddl import textgen

    with _lock:
        if not _installed:
            translate = fast_downward.pddl2sas
            directory = _translations_dir[0]
            if directory is not None:
                translate = PersistedTranslations(translate, directory)
                _installed["persisted"] = translate
            translation = Memo(translate, capacity=CACHED_TRANSLATIONS)
            parse = Memo(textgen._parse_and_convert, copies=copy_template_parse)
            game_grammar = Memo(pddl_logic._parse_and_convert, capacity=CACHED_GAME_GRAMMARS, copies=copy.deepcopy)
            logic_parse = Memo(
                textworld.logic._parse_and_convert, capacity=CACHED_LOGIC_PARSES, copies=copy_condition_parse
            )
            fast_downward.pddl2sas = deferring_replanning(translation)
            textgen._parse_and_convert = parse
            pddl_logic._parse_and_convert = game_grammar
            textworld.logic._parse_and_convert = logic_parse
            textgen.copy_context = copy_context_keeping_values
            _installed.update(
                translation=translation, parse=parse, game_grammar=game_grammar, logic_parse=logic_parse
            )
    return dict(_installed)
