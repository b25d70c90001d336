"""The markdown report.md and audit.md are written in, as HTML: headings, paragraphs, lists, tables, code, links,
and images embedded as data URIs so the page needs no file beside it.

Only that subset, because only that is written; every character of the source is escaped before markup is added.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterator
from pathlib import Path

from harness.report.html._text import esc

_HEADING_RE = re.compile(r"(#{1,6}) (.*)")
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD_RE = re.compile(r"\*\*(.+?)\*\*")
_SEPARATOR_RE = re.compile(r"\|(\s*:?-+:?\s*\|)+")
_IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _safe_href(href: str) -> str | None:
    """Relative paths, anchors and http(s) only: a folder name must not become a javascript: link."""
    scheme = re.match(r"([a-zA-Z][a-zA-Z0-9+.-]*):", href)
    return href if scheme is None or scheme.group(1).lower() in ("http", "https") else None


def _image(alt: str, source: str, folder: Path) -> str:
    path = folder / html.unescape(source)
    kind = _IMAGE_TYPES.get(path.suffix.lower())
    if kind is None or not path.is_file():
        return f'<span class="missing">[image not found: {esc(source)}]</span>'
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img id="img-{source}" alt="{esc(alt)}" src="data:{kind};base64,{data}">'


def _links_and_bold(escaped: str, folder: Path) -> str:
    def image(match: re.Match[str]) -> str:
        return _image(match.group(1), match.group(2), folder)

    def link(match: re.Match[str]) -> str:
        href = _safe_href(match.group(2))
        if href is not None and Path(href).suffix.lower() in _IMAGE_TYPES:
            # The image is on the page: the link goes to it, not to a file that may not travel with the page.
            href = f"#img-{href}"
        return match.group(1) if href is None else f'<a href="{href}">{match.group(1)}</a>'

    text = _IMAGE_RE.sub(image, escaped)
    text = _LINK_RE.sub(link, text)
    return _BOLD_RE.sub(r"<strong>\1</strong>", text)


def inline(text: str, folder: Path) -> str:
    """One line's inline markup: `code` first (nothing inside it is markup), then images, links and bold.

    Image and link targets are taken from the escaped text, so they stay escaped inside the attributes.
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:
        # An odd backtick count: the last one is a literal.
        parts = [*parts[:-2], parts[-2] + "`" + parts[-1]]
    out = []
    for k, part in enumerate(parts):
        # A path may break after each '/', so a table column of long paths wraps at folders, not mid-name.
        code = esc(part).replace("/", "/<wbr>")
        out.append(f"<code>{code}</code>" if k % 2 else _links_and_bold(esc(part), folder))
    return "".join(out)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table(lines: list[str], folder: Path) -> str:
    header, rows = _cells(lines[0]), [_cells(line) for line in lines[1:] if not _SEPARATOR_RE.fullmatch(line.strip())]
    head = "".join(f"<th>{inline(cell, folder)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{inline(c, folder)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="tablewrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _blocks(lines: list[str]) -> Iterator[tuple[str, list[str]]]:
    """(kind, lines) per block: h1 to h6 (the heading's text), table, list (its items), code, paragraph."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("```"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
            yield "code", lines[i + 1 : end]
            i = end + 1
        elif heading := _HEADING_RE.fullmatch(line):
            yield f"h{len(heading.group(1))}", [heading.group(2)]
            i += 1
        elif line.startswith("|"):
            end = next((j for j in range(i, len(lines)) if not lines[j].startswith("|")), len(lines))
            yield "table", lines[i:end]
            i = end
        elif line.startswith("- "):
            items: list[str] = []
            while i < len(lines) and (lines[i].startswith("- ") or (lines[i].startswith(" ") and lines[i].strip())):
                if lines[i].startswith("- "):
                    items.append(lines[i][2:])
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            yield "list", items
        else:
            end = i
            while end < len(lines) and lines[end].strip() and not _starts_block(lines[end]):
                end += 1
            yield "paragraph", lines[i : max(end, i + 1)]
            i = max(end, i + 1)


def _starts_block(line: str) -> bool:
    return line.startswith(("```", "|", "- ")) or _HEADING_RE.fullmatch(line) is not None


def markdown_html(markdown: str, folder: Path) -> str:
    """The markdown as HTML; images are read from `folder` (where the markdown file lives)."""
    out = []
    for kind, lines in _blocks(markdown.splitlines()):
        if kind.startswith("h"):
            out.append(f"<{kind}>{inline(lines[0], folder)}</{kind}>")
        elif kind == "table":
            out.append(_table(lines, folder))
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{inline(item, folder)}</li>" for item in lines) + "</ul>")
        elif kind == "code":
            out.append(f"<pre>{esc(chr(10).join(lines))}</pre>")
        elif len(lines) == 1 and _IMAGE_RE.fullmatch(lines[0].strip()):
            out.append(f"<figure>{inline(lines[0].strip(), folder)}</figure>")
        else:
            out.append(f"<p>{inline(' '.join(line.strip() for line in lines), folder)}</p>")
    return "\n".join(out)
