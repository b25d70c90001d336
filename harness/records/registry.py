"""Names -> objects, loaded on first use: the one registry every pluggable part of the harness keeps.

An entry is the object itself or a `"module:attribute"` reference, imported the first time its name is looked up,
so naming a domain or a backend costs nothing until a run uses it. An installed package adds entries as Python
entry points in the registry's group (`reflexion_harness.domains`, `.sources`, `.backends`, `.audit_loaders`:
`[project.entry-points."reflexion_harness.sources"]` in its pyproject.toml), found the first time the registry is
read; they cannot replace an entry of the harness's own, and one that fails to load is warned about and left out.
The registry sits at the bottom layer so that every package, the record schema included, can keep one.
"""

from __future__ import annotations

import importlib
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import entry_points
from types import FrameType
from typing import Any, Generic, TypeVar

from harness.errors import HarnessError, visible

T = TypeVar("T")


class UnknownNameError(HarnessError, ValueError):
    """A name no entry of a registry has; the message lists the accepted ones."""

    def __init__(self, message: str, name: str, accepted: list[str]) -> None:
        self.name, self.accepted = name, accepted
        super().__init__(message)


class RegistryLoadError(HarnessError):
    """An entry's reference could not be imported, or is not what its registry holds."""


def load_reference(reference: str) -> Any:
    """The object a `"module:attribute"` reference names (`attribute` may be dotted), imported."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{reference!r} is not a 'module:attribute' reference")
    found: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


class Lazy(Generic[T]):
    """An object, or the `"module:attribute"` reference that names it, loaded once when first asked for."""

    __slots__ = ("_loaded", "_reference", "_value")

    def __init__(self, reference: str) -> None:
        self._reference: str | None = reference
        self._value: Any = None
        self._loaded = False

    @classmethod
    def of(cls, value: T) -> Lazy[T]:
        """The object itself, already loaded (a string too: it is then the value, not a reference)."""
        made: Lazy[T] = cls.__new__(cls)
        made._reference, made._value, made._loaded = None, value, True
        return made

    @property
    def reference(self) -> str | None:
        """The reference, or None for an object given as itself."""
        return self._reference

    def load(self) -> T:
        if not self._loaded:
            assert self._reference is not None
            self._value, self._loaded = load_reference(self._reference), True
        value: T = self._value
        return value

    def __repr__(self) -> str:
        return f"Lazy({self._reference!r})" if self._reference is not None else f"Lazy.of({self._value!r})"


def _reason(error: BaseException) -> str:
    """Why an entry did not load, its control characters shown: the warning goes to a terminal as it is."""
    if isinstance(error, SystemExit):
        return f"it called sys.exit({error.code!r}) as it was imported"
    if isinstance(error, KeyboardInterrupt):
        return "it raised KeyboardInterrupt as it was imported, with no Ctrl-C pressed"
    return visible(str(error))


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def _stop_signals_noted() -> Iterator[list[int]]:
    """The stop signals (Ctrl-C, SIGTERM, SIGHUP) handled during the block, each handled as before: a
    KeyboardInterrupt or an exit that a plugin's import raises with none arrived is the plugin's doing, not the
    user's stop. Outside the main thread none can arrive there: Python runs signal handlers in the main thread."""
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return
    previous = {number: signal.getsignal(number) for number in _STOP_SIGNALS}

    def noted(handler: Callable[[int, FrameType | None], Any]) -> Callable[[int, FrameType | None], Any]:
        def note(number: int, frame: FrameType | None) -> Any:
            arrived.append(number)
            return handler(number, frame)

        return note

    for number, handler in previous.items():
        if callable(handler):  # Python's own handlers (Ctrl-C's KeyboardInterrupt) and the harness's
            signal.signal(number, noted(handler))
    try:
        yield arrived
    finally:
        for number, handler in previous.items():
            if callable(handler):
                signal.signal(number, handler)


@contextmanager
def _nothing_noted() -> Iterator[list[int]]:
    yield []


def _default_unknown(noun: str) -> Callable[[str, list[str]], str]:
    return lambda name, accepted: f"{name!r} is not a {noun}; accepted: {', '.join(accepted)}."


class Registry(Generic[T]):
    """The entries of one kind by name: given ones, those `discover` registers, and the group's entry points.

    `check(name, obj)` says in a few words what is wrong with a loaded object (None: nothing); `from_entry_point`
    turns what an entry point names into the entry (None: that entry point offers none); `unknown(name, accepted)`
    words the refusal of a name.
    """

    def __init__(
        self,
        noun: str,
        group: str | None = None,
        entries: Mapping[str, T | str] | None = None,
        *,
        discover: Callable[[], None] | None = None,
        check: Callable[[str, Any], str | None] | None = None,
        from_entry_point: Callable[[Any], T | None] | None = None,
        unknown: Callable[[str, list[str]], str] | None = None,
    ) -> None:
        self.noun, self.group = noun, group
        self._entries: dict[str, Lazy[Any]] = {}
        self._plugins: dict[str, str] = {}  # name -> the distribution whose entry point added it
        self._values: dict[str, T | None] = {}  # loaded and checked; None: an entry point that offers nothing
        self._broken: dict[str, RegistryLoadError] = {}  # entry points that failed to load, warned about once
        self._discover, self._check, self._from_entry_point = discover, check, from_entry_point
        self._unknown = unknown or _default_unknown(noun)
        self._ready = False
        self._lock = threading.RLock()
        for name, entry in (entries or {}).items():
            self.register(name, entry)

    def register(self, name: str, entry: T | str) -> None:
        """Make `name` an entry: the object itself, or a `"module:attribute"` reference to import on first use."""
        with self._lock:
            self._entries[name] = Lazy(entry) if isinstance(entry, str) else Lazy.of(entry)
            self._plugins.pop(name, None)
            self._values.pop(name, None)
            self._broken.pop(name, None)

    def unregister(self, name: str) -> None:
        """Forget `name` (a test's registration, once it is done); an entry point's stays forgotten."""
        with self._lock:
            for table in (self._entries, self._plugins, self._values, self._broken):
                table.pop(name, None)

    def _ensure(self) -> None:
        with self._lock:
            if self._ready:
                return
            self._ready = True  # before discovery: what it imports may register entries, and look them up
            if self._discover is not None:
                self._discover()
            if self.group is not None:
                self._add_entry_points(self.group)

    def _add_entry_points(self, group: str) -> None:
        for point in sorted(entry_points(group=group), key=lambda p: p.name):
            where = point.dist.name if point.dist is not None else "an installed package"
            if point.name in self._entries:
                if self._plugins.get(point.name) != where:
                    ignored = f"{where}'s {self.noun} {point.name!r} is ignored: that name is taken."
                    warnings.warn(visible(ignored), stacklevel=4)
                continue
            self._entries[point.name] = Lazy(point.value)
            self._plugins[point.name] = where

    def _offered(self, name: str) -> bool:
        """Whether `name` is an entry; an entry point is one only once it loads and offers something."""
        if name not in self._entries:
            return False
        if name not in self._plugins:
            return True
        if name not in self._values and name not in self._broken:
            try:
                self._load(name)
            except RegistryLoadError as error:
                warnings.warn(str(error), stacklevel=4)
                self._broken[name] = error
        return self._values.get(name) is not None

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return isinstance(name, str) and self._offered(name)

    def ordered(self) -> list[str]:
        """Every name in the order registered: the harness's own first, then the entry points by name."""
        self._ensure()
        return [name for name in list(self._entries) if self._offered(name)]

    def names(self) -> list[str]:
        """Every name, sorted."""
        return sorted(self.ordered())

    def get(self, name: str) -> T:
        """The entry `name`, imported now if it is a reference; UnknownNameError listing the names otherwise, or
        RegistryLoadError saying why an entry point's reference does not load."""
        if name not in self:
            if name in self._broken:
                raise self._broken[name]
            accepted = self.names()
            raise UnknownNameError(self._unknown(name, accepted), name, accepted)
        return self._load(name)  # type: ignore[return-value]  # offered, so loaded to something

    def _load(self, name: str) -> T | None:
        if name in self._values:
            return self._values[name]
        entry = self._entries[name]
        # Whatever an installed package's module raises is its own failure, sys.exit() at its import included (a
        # script's last line left in a module), which would otherwise end every command quietly, and a
        # KeyboardInterrupt it raises itself, which would read as the user's Ctrl-C; a stop signal that arrives
        # meanwhile stays the user's. The harness's own fail only as named.
        plugin = name in self._plugins
        failures = (Exception, SystemExit, KeyboardInterrupt) if plugin else (ImportError, AttributeError, ValueError)
        with (_stop_signals_noted() if plugin else _nothing_noted()) as arrived:
            try:
                found: Any = entry.load()
            except failures as error:
                if arrived:
                    raise
                raise RegistryLoadError(
                    f"{self.noun} {name!r} could not be loaded from {entry.reference!r}: {_reason(error)}."
                ) from error
        if name in self._plugins and self._from_entry_point is not None:
            found = self._from_entry_point(found)
            if found is None:  # the entry point offers nothing here (a domain without a record model)
                self._values[name] = None
                return None
        problem = None if self._check is None else self._check(name, found)
        if problem is not None:
            raise RegistryLoadError(f"{self.noun} {name!r} ({entry.reference or repr(found)}) {problem}.")
        self._values[name] = found
        return found

    def load_all(self) -> dict[str, T]:
        """Every entry, loaded, in registration order; an entry point that fails to load is warned about and left
        out, so one broken plugin does not stop the harness (looking its name up says why)."""
        return {name: self.get(name) for name in self.ordered()}


def choices(names: Iterable[str]) -> str:
    """The names as pydantic's message for a Literal lists them: `'a', 'b' or 'c'`."""
    quoted = [repr(name) for name in names]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1 else "".join(quoted)
