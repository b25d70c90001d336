"""The blocks and runs a report is made of, built once in memory and rendered to markdown and to HTML.

Data (record and manifest values, config values, model text, directory names) enters a document only as the text
of a run (`Text`, `Code`), which each renderer escapes so it stays text. Markup comes from the types alone, and a
link's target only from a path the report wrote (`Link.to_path`, percent-encoded) or an anchor of its own page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Union
from urllib.parse import quote


@dataclass(frozen=True)
class Text:
    """Prose or data, shown as it is: never markup."""

    text: str


@dataclass(frozen=True)
class Code:
    """Text in monospace (a command, a path, a source name); never markup either."""

    text: str


@dataclass(frozen=True, init=False)
class Strong:
    """Its runs in bold."""

    runs: tuple[Inline, ...]

    def __init__(self, *parts: Part) -> None:
        object.__setattr__(self, "runs", as_runs(parts))


# Kept as they are in a target besides the unreserved characters: '/' between segments and the sub-delimiters of
# Hydra's override_dirname (key=value,key=value). ':' is always encoded, so no target can start with a scheme.
_TARGET_SAFE = "/=+,@"
_TARGET_RE = re.compile(r"#[A-Za-z0-9_.-]+|[A-Za-z0-9_.~%/=+,@-]+")


def local_target(path: str | PurePath) -> str:
    """A relative path the report wrote (a run directory, a plot), as a link target: percent-encoded, so whatever
    the names hold, the target has no scheme, no control character and nothing a renderer reads as markup."""
    pure = PurePath(path)
    if pure.is_absolute():
        raise ValueError(f"{path} is absolute; a report links to paths relative to itself")
    return quote(pure.as_posix(), safe=_TARGET_SAFE)


@dataclass(frozen=True, init=False)
class Link:
    """A link the report makes: to a file it wrote (`to_path`) or to an anchor of its page (`#id`). The label is
    text like any other."""

    runs: tuple[Inline, ...]
    target: str

    def __init__(self, label: Cell, target: str) -> None:
        if not _TARGET_RE.fullmatch(target) or target.startswith("/"):
            raise ValueError(f"{target!r} is not a target the report made: use Link.to_path or '#anchor'")
        object.__setattr__(self, "runs", as_cell(label))
        object.__setattr__(self, "target", target)

    @classmethod
    def to_path(cls, label: Cell, path: str | PurePath) -> Link:
        return cls(label, local_target(path))


Inline = Union[Text, Code, Strong, Link]
Part = Union[str, Inline]
"""What a run is written as: a str is a Text run."""
_INLINE = (Text, Code, Strong, Link)


def as_runs(parts: Iterable[Part]) -> tuple[Inline, ...]:
    return tuple(Text(part) if isinstance(part, str) else part for part in parts)


Cell = Union[Part, Sequence[Part]]
"""A table cell, a list item or a label: one part, or several side by side."""


def as_cell(cell: Cell) -> tuple[Inline, ...]:
    """One part, or several side by side, as runs."""
    if isinstance(cell, (str, *_INLINE)):
        return as_runs([cell])
    return as_runs(cell)


@dataclass(frozen=True, init=False)
class Paragraph:
    runs: tuple[Inline, ...]

    def __init__(self, *parts: Part) -> None:
        object.__setattr__(self, "runs", as_runs(parts))


@dataclass(frozen=True, init=False)
class BulletList:
    """Items of one or more runs each."""

    items: tuple[tuple[Inline, ...], ...]

    def __init__(self, items: Iterable[Cell]) -> None:
        object.__setattr__(self, "items", tuple(as_cell(item) for item in items))


@dataclass(frozen=True, init=False)
class Table:
    """A header and rows of cells, every row as long as the header; a cell is one part or several."""

    header: tuple[tuple[Inline, ...], ...]
    rows: tuple[tuple[tuple[Inline, ...], ...], ...]

    def __init__(self, header: Sequence[Cell], rows: Iterable[Sequence[Cell]]) -> None:
        cells = tuple(tuple(as_cell(cell) for cell in row) for row in rows)
        short = [k for k, row in enumerate(cells) if len(row) != len(header)]
        if short:
            raise ValueError(f"row {short[0]} has {len(cells[short[0]])} cells under a header of {len(header)}")
        object.__setattr__(self, "header", tuple(as_cell(cell) for cell in header))
        object.__setattr__(self, "rows", cells)


@dataclass(frozen=True)
class Figure:
    """An image file the report wrote beside the document: linked from markdown, embedded in HTML."""

    alt: str
    path: str

    def __post_init__(self) -> None:
        local_target(self.path)

    @property
    def target(self) -> str:
        return local_target(self.path)


@dataclass(frozen=True, init=False)
class Section:
    """A heading and the blocks under it; a section inside a section is one level deeper."""

    title: tuple[Inline, ...]
    blocks: tuple[Block, ...]

    def __init__(self, title: Cell, blocks: Iterable[Block]) -> None:
        object.__setattr__(self, "title", as_cell(title))
        object.__setattr__(self, "blocks", tuple(blocks))


Block = Union[Paragraph, BulletList, Table, Figure, Section]


class Document:
    """A whole report: its title (the page's too) and its blocks."""

    __slots__ = ("title", "blocks")

    def __init__(self, title: str, blocks: Iterable[Block]) -> None:
        self.title = title
        self.blocks = tuple(blocks)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Document) and (self.title, self.blocks) == (other.title, other.blocks)

    def __hash__(self) -> int:
        return hash((self.title, self.blocks))

    def __repr__(self) -> str:
        return f"Document({self.title!r}, {len(self.blocks)} blocks)"

    def then(self, blocks: Iterable[Block]) -> Document:
        """The same document with `blocks` after its own (a sweep's job table after the combined report)."""
        return Document(self.title, [*self.blocks, *blocks])

    def without_figures(self) -> Document:
        """The same document with no figure at any depth: a report written without its plots."""
        return Document(self.title, _without_figures(self.blocks))


def _without_figures(blocks: Iterable[Block]) -> list[Block]:
    kept: list[Block] = []
    for block in blocks:
        if isinstance(block, Section):
            kept.append(Section(block.title, _without_figures(block.blocks)))
        elif not isinstance(block, Figure):
            kept.append(block)
    return kept
