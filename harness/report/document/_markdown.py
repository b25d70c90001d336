"""A document as markdown (CommonMark with GitHub's tables), every run of text escaped so it stays text.

A backslash escapes any ASCII punctuation in CommonMark, so a character that could start markup is escaped where
it could: always for the ones that open inline markup anywhere (code, emphasis, links, raw HTML, entities, table
cells, strikethrough, heading markers), '_' unless it sits inside a word (where it opens nothing), ':' before '//'
(a bare URL that GitHub would link), and at the start of a block the markers of lists, quotes and indented code.
'(' and ')' are left alone: with every '[' escaped they can close no link.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.errors import visible
from harness.report.document._model import (
    Block,
    BulletList,
    Code,
    Document,
    Figure,
    Inline,
    Link,
    Paragraph,
    Section,
    Strong,
    Table,
    Text,
)

_ALWAYS = frozenset("\\`*[]<&|~#")
_LIST_OR_QUOTE = frozenset("-+>")
_ORDERED_RE = re.compile(r"\d{1,9}(?=[.)](?: |$))")
_BACKTICKS_RE = re.compile(r"`+")


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def escape(text: str, at_block_start: bool = False) -> str:
    """`text` as markdown that renders as exactly `text` (its control characters made visible)."""
    text = visible(text)
    out = []
    for i, char in enumerate(text):
        special = (
            char in _ALWAYS
            or (char == "_" and not _inside_word(text, i))
            or (char == ":" and text.startswith("//", i + 1))
        )
        out.append("\\" + char if special else char)
    escaped = "".join(out)
    if not at_block_start:
        return escaped
    # Leading spaces would indent a code block or be dropped; as entities they are text.
    stripped = escaped.lstrip(" ")
    lead = "&#32;" * (len(escaped) - len(stripped))
    if stripped[:1] in _LIST_OR_QUOTE:
        stripped = "\\" + stripped
    elif ordered := _ORDERED_RE.match(stripped):
        stripped = stripped[: ordered.end()] + "\\" + stripped[ordered.end() :]
    return lead + stripped


def code_span(text: str, in_table: bool = False) -> str:
    """`text` in a code span fenced by more backticks than it holds; in a table a '|' is escaped (GitHub's tables
    split cells before they read code)."""
    text = visible(text)
    if not text:
        return ""
    if in_table:
        text = text.replace("|", "\\|")
    fence = "`" * (max((len(run) for run in _BACKTICKS_RE.findall(text)), default=0) + 1)
    # CommonMark takes one space off each end when both ends have one: a padded text keeps its own.
    pad = " " if text.strip(" ") and (text[0] in "` " or text[-1] in "` ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _strong(inner: str) -> str:
    """Bold around `inner`; its outer spaces stay outside, where '**' can open and close around the text."""
    text = inner.strip(" ")
    if not text:
        return inner
    start = inner.index(text)
    return f"{inner[:start]}**{text}**{inner[start + len(text):]}"


def runs(parts: Sequence[Inline], at_block_start: bool = False, in_table: bool = False) -> str:
    out = []
    for k, run in enumerate(parts):
        first = at_block_start and k == 0
        if isinstance(run, Text):
            out.append(escape(run.text, first))
        elif isinstance(run, Code):
            out.append(code_span(run.text, in_table))
        elif isinstance(run, Strong):
            out.append(_strong(runs(run.runs, in_table=in_table)))
        elif isinstance(run, Link):
            out.append(f"[{runs(run.runs, in_table=in_table)}]({run.target})")
    return "".join(out)


def _row(cells: Sequence[Sequence[Inline]]) -> str:
    return "| " + " | ".join(runs(cell, in_table=True) for cell in cells) + " |"


def _table(table: Table) -> str:
    return "\n".join([_row(table.header), "|" + "---|" * len(table.header), *(_row(row) for row in table.rows)])


def _blocks(block: Block, depth: int) -> list[str]:
    if isinstance(block, Section):
        heading = "#" * min(depth, 6) + " " + runs(block.title, at_block_start=True)
        return [heading, *(chunk for inner in block.blocks for chunk in _blocks(inner, depth + 1))]
    if isinstance(block, Paragraph):
        return [runs(block.runs, at_block_start=True)]
    if isinstance(block, BulletList):
        return ["\n".join("- " + runs(item, at_block_start=True) for item in block.items)]
    if isinstance(block, Table):
        return [_table(block)]
    if isinstance(block, Figure):
        return [f"![{escape(block.alt)}]({block.target})"]
    raise TypeError(f"not a block: {block!r}")


def render_markdown(document: Document) -> str:
    """The document as one markdown file: its title as the first heading, blocks apart by a blank line."""
    chunks = ["# " + escape(document.title, at_block_start=True)]
    chunks += [chunk for block in document.blocks for chunk in _blocks(block, 2)]
    return "\n\n".join(chunks) + "\n"
