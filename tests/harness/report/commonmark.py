"""Markdown read as a CommonMark reader with GitHub's tables and strikethrough reads it (markdown-it-py, raw HTML
on), so a test sees what a renderer's output becomes: which links, which markup, which table cells, which text."""

from __future__ import annotations

from collections.abc import Sequence
from html.parser import HTMLParser

from markdown_it import MarkdownIt
from markdown_it.token import Token

from harness.report.document import Block, Document, render_markdown

_READER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
TEXT_TOKENS = {"text", "text_special"}


def parse(markdown: str) -> list[Token]:
    return _READER.parse(markdown)


def every_token(markdown: str) -> list[Token]:
    """Block tokens and, in place of each inline token, its children."""
    found: list[Token] = []
    for token in parse(markdown):
        found += token.children if token.type == "inline" and token.children is not None else [token]
    return found


def link_targets(markdown: str) -> list[str]:
    """Every link's href and image's src, in order."""
    return [
        str(token.attrs.get("href", token.attrs.get("src", "")))
        for token in every_token(markdown)
        if token.type in ("link_open", "image")
    ]


def inline_text(token: Token) -> str:
    """What an inline token shows as text: its text and code, markup left out."""
    return "".join(
        child.content for child in token.children or [] if child.type in TEXT_TOKENS or child.type == "code_inline"
    )


def tables(markdown: str) -> list[list[list[str]]]:
    """Each table as rows (header first) of cell texts."""
    found: list[list[list[str]]] = []
    for token in parse(markdown):
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            found[-1].append([])
        elif token.type == "inline" and found and found[-1] and token.level >= 4:
            found[-1][-1].append(inline_text(token))
        elif token.type == "table_close":
            found[-1] = [row for row in found[-1] if row]
    return found


class _Attributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [value or "" for name, value in attrs if name in ("href", "src", "action", "formaction")]


def html_urls(page: str) -> list[str]:
    """Every URL an element of the page holds (href, src, action), as a browser reads the attributes."""
    parser = _Attributes()
    parser.feed(page)
    return parser.urls


def html_tags(page: str) -> list[str]:
    parser = _Attributes()
    parser.feed(page)
    return parser.tags


def blocks_markdown(blocks: Sequence[Block]) -> str:
    """Blocks as report.md writes them (without the document's title line)."""
    return render_markdown(Document("t", blocks)).split("\n\n", 1)[1]
