"""The replanner's translation of a game, made only by engines that report the planner's plan.

textworld's PddlState translates every game twice: plainly, to play it, and optimized, for fast_downward's
replanner, which only `policy_commands` (and a walkthrough) use. An engine started without them never replans,
yet half of a game's first reset went to that second translation. Here the optimized translation is deferred
until the library really loads it (`deferring_replanning`), and an engine without the plan plays through a
library that does not load it (`skip_replanning`), so for that engine it is never made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class DeferredTranslation:
    """A game's optimized SAS text, translated when a library reads its bytes (ctypes asks `_as_parameter_`)."""

    def __init__(self, translate: Callable[[], str]) -> None:
        self._translate = translate

    def encode(self, encoding: str = "utf-8") -> DeferredBytes:
        return DeferredBytes(self._translate, encoding)


class DeferredBytes:
    """The encoded text of a DeferredTranslation; what PddlState hands to `load_sas_replan`."""

    def __init__(self, translate: Callable[[], str], encoding: str) -> None:
        self._translate = translate
        self._encoding = encoding

    @property
    def _as_parameter_(self) -> bytes:
        return self._translate().encode(self._encoding)


def deferring_replanning(translate: Callable[..., Any]) -> Callable[..., Any]:
    """`translate` (fast_downward.pddl2sas's signature) with the optimized translation deferred.

    An optimized call returns no task: PddlState, its only caller, keeps the SAS text alone.
    """

    def pddl2sas(domain: str, problem: str, verbose: bool = False, optimize: bool = False) -> Any:
        if not optimize:
            return translate(domain, problem, verbose=verbose)
        return None, DeferredTranslation(lambda: translate(domain, problem, verbose=verbose, optimize=True)[1])

    return pddl2sas


class LibraryWithoutReplanning:
    """fast_downward's library for an engine that never replans: the replanning task is not loaded."""

    def __init__(self, library: Any) -> None:
        self._library = library

    def __getattr__(self, name: str) -> Any:
        return getattr(self._library, name)

    def load_sas_replan(self, sas: Any) -> None:
        """Dropped, untranslated when deferred."""

    def replan(self, verbose: bool) -> bool:
        raise RuntimeError("this ALFWorld engine was started without the planner's plan, so it cannot replan")


def skip_replanning(pddl_env: Any) -> None:
    """Make a textworld PddlEnv started without policy_commands play without the replanner's translation."""
    pddl_env.downward_lib = LibraryWithoutReplanning(pddl_env.downward_lib)
