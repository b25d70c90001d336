"""A document as HTML for report.html and audit.html: every run of text escaped, images embedded as data URIs so
the page needs no file beside it, and a link to an embedded image sent to the image on the page."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from pathlib import Path

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

IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _esc(text: str) -> str:
    return html.escape(visible(text), quote=True)


def _image_id(figure: Figure) -> str:
    return f"img-{figure.target}"


class _Renderer:
    def __init__(self, document: Document, folder: Path) -> None:
        self.folder = folder
        self.figures = {figure.target: figure for figure in _figures(document.blocks)}

    def runs(self, parts: Sequence[Inline]) -> str:
        return "".join(self.run(part) for part in parts)

    def run(self, part: Inline) -> str:
        if isinstance(part, Text):
            return _esc(part.text)
        if isinstance(part, Code):
            # A path may break after each '/', so a table column of long paths wraps at folders, not mid-name.
            return "<code>" + _esc(part.text).replace("/", "/<wbr>") + "</code>"
        if isinstance(part, Strong):
            return f"<strong>{self.runs(part.runs)}</strong>"
        if isinstance(part, Link):
            figure = self.figures.get(part.target)
            # The image is on the page: the link goes to it, not to a file that may not travel with the page.
            href = f"#{_image_id(figure)}" if figure is not None else part.target
            return f'<a href="{_esc(href)}">{self.runs(part.runs)}</a>'
        raise TypeError(f"not a run: {part!r}")

    def figure(self, figure: Figure) -> str:
        path = self.folder / figure.path
        kind = IMAGE_TYPES.get(path.suffix.lower())
        if kind is None or not path.is_file():
            return f'<figure><span class="missing">[image not found: {_esc(figure.path)}]</span></figure>'
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        image = f'<img id="{_esc(_image_id(figure))}" alt="{_esc(figure.alt)}" src="data:{kind};base64,{data}">'
        return f"<figure>{image}</figure>"

    def table(self, table: Table) -> str:
        head = "".join(f"<th>{self.runs(cell)}</th>" for cell in table.header)
        body = "".join(
            "<tr>" + "".join(f"<td>{self.runs(cell)}</td>" for cell in row) + "</tr>" for row in table.rows
        )
        return f'<div class="tablewrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'

    def block(self, block: Block, depth: int) -> list[str]:
        if isinstance(block, Section):
            level = min(depth, 6)
            heading = f"<h{level}>{self.runs(block.title)}</h{level}>"
            return [heading, *(chunk for inner in block.blocks for chunk in self.block(inner, depth + 1))]
        if isinstance(block, Paragraph):
            return [f"<p>{self.runs(block.runs)}</p>"]
        if isinstance(block, BulletList):
            return ["<ul>" + "".join(f"<li>{self.runs(item)}</li>" for item in block.items) + "</ul>"]
        if isinstance(block, Table):
            return [self.table(block)]
        if isinstance(block, Figure):
            return [self.figure(block)]
        raise TypeError(f"not a block: {block!r}")


def _figures(blocks: Sequence[Block]) -> list[Figure]:
    found: list[Figure] = []
    for block in blocks:
        if isinstance(block, Figure):
            found.append(block)
        elif isinstance(block, Section):
            found += _figures(block.blocks)
    return found


def render_html(document: Document, folder: Path) -> str:
    """The document as HTML (its title as <h1>); images are read from `folder`, where the report's files are."""
    renderer = _Renderer(document, Path(folder))
    chunks = [f"<h1>{_esc(document.title)}</h1>"]
    chunks += [chunk for block in document.blocks for chunk in renderer.block(block, 2)]
    return "\n".join(chunks)
