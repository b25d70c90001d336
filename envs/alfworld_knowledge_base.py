"""textworld's knowledge base unpickled from the translations folder instead of parsed at import.

Importing textworld parses the logic files of its game generator (`textworld/generator/data/logic/*.twl`) with
tatsu into a knowledge base: 0.4 to 0.7 s of CPU in every process that starts an ALFWorld engine (a run, each
engine worker), though the PDDL engine never reads it. With a translations folder (`env.translation_cache`), the
parsed GameLogic is kept there, keyed by textworld's version and the files' paths and text, and the next process
reads it in about 10 ms. The files are pickles written by this code, as the translations are: keep the folder
where only you write.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.metadata
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from envs.persisted_file import CountedPickles

FOLDER = "knowledge_base"
"""The translations folder's subfolder for the parsed logic (apart from the translations' own pickles)."""


class PersistedLogic(CountedPickles):
    """`GameLogic.load` kept in `directory`: one pickle per (textworld version, paths, texts)."""

    def __init__(self, parse: Any, directory: Path) -> None:
        super().__init__(directory)
        self._parse = parse

    def __call__(self, cls: type, paths: Iterable[str]) -> Any:
        paths = list(paths)
        texts = [Path(path).read_text() for path in paths]
        return self.get(partial(self._parse, cls, paths), importlib.metadata.version("textworld"), paths, texts)


class _LoaderThenPatch(importlib.abc.Loader):
    """The module's own loader, then `patch` on the executed module."""

    def __init__(self, loader: Any, patch: Any) -> None:
        self._loader = loader
        self._patch = patch

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._patch(module)


class _OnLogicImport(importlib.abc.MetaPathFinder):
    """Finds `textworld.logic` as Python would, and persists its GameLogic.load once the module has run: textworld
    imports it before its knowledge base, so the knowledge base's load goes through the folder."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "textworld.logic":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _LoaderThenPatch(spec.loader, self._persist)
        return spec

    def _persist(self, module: ModuleType) -> None:
        game_logic = module.GameLogic
        game_logic.load = classmethod(PersistedLogic(game_logic.load.__func__, self._directory))


@contextmanager
def knowledge_base_kept_in(directory: Path | None) -> Iterator[None]:
    """Within: a first import of textworld reads its knowledge base from `directory`/knowledge_base, or parses it
    and keeps it there (None: parsed, as textworld does). textworld's `GameLogic.load` is then a PersistedLogic,
    which counts its reads and writes."""
    if directory is None or "textworld.logic" in sys.modules:
        yield
        return
    hook = _OnLogicImport(directory / FOLDER)
    sys.meta_path.insert(0, hook)
    try:
        yield
    finally:
        sys.meta_path.remove(hook)
