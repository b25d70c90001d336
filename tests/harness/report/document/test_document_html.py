"""The document's HTML (the top of report.html and audit.html): data is text whatever it holds, images are
embedded, and a link goes only where the report made it go."""

from __future__ import annotations

import html
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.report.document import (
    BulletList,
    Code,
    Document,
    Figure,
    Link,
    Paragraph,
    Section,
    Strong,
    Table,
    render_html,
    visible,
)
from tests.harness.report.commonmark import html_tags, html_urls
from tests.harness.report.document.test_document_markdown import HOSTILE

STRUCTURE = ["h1", "p", "code", "ul", "li", "li", "strong", "h2", "div", "table", "thead", "tr", "th", "tbody", "tr",
             "td", "tr", "td", "a"]


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.by_tag: list[tuple[str, str]] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self._open.pop()

    def handle_data(self, data: str) -> None:
        self.by_tag.append((self._open[-1] if self._open else "", data))


@pytest.mark.parametrize("data", HOSTILE)
def test_data_in_every_block_is_text_and_makes_no_element_or_link(data: str, tmp_path: Path) -> None:
    document = Document(
        data,
        [
            Paragraph(data, Code(data)),
            BulletList([data, Strong(data)]),
            Section(data, [Table([data], [[data], [Link.to_path(data, "runs/x")]])]),
        ],
    )
    # <wbr> is the page's own: a code path may break after each '/'.
    page = render_html(document, tmp_path).replace("<wbr>", "")
    assert html_tags(page) == STRUCTURE
    assert html_urls(page) == ["runs/x"]
    parser = _Text()
    parser.feed(page)
    shown = visible(data)
    texts = [text for _, text in parser.by_tag if text != "\n"]
    assert texts == ([shown] * 9 if data else [])
    assert "\x01" not in page and "<script" not in page.replace("&lt;script", "")


def test_images_are_embedded_and_a_link_to_one_goes_to_it_on_the_page(tmp_path: Path) -> None:
    (tmp_path / "plot.png").write_bytes(b"\x89PNG fake")
    document = Document(
        "Report: <run>",
        [
            Paragraph(Link.to_path("the plot", "plot.png"), " and ", Link.to_path("a run", "../run")),
            Figure("a plot", "plot.png"),
            Figure("gone", "missing.png"),
            Paragraph(Code("runs/root/logs")),
        ],
    )
    page = render_html(document, tmp_path)
    assert page.startswith("<h1>Report: &lt;run&gt;</h1>")
    assert '<a href="#img-plot.png">the plot</a> and <a href="../run">a run</a>' in page
    assert '<figure><img id="img-plot.png" alt="a plot" src="data:image/png;base64,iVBORyBmYWtl"></figure>' in page
    assert '<span class="missing">[image not found: missing.png]</span>' in page
    assert "<p><code>runs/<wbr>root/<wbr>logs</code></p>" in page
    assert html.unescape(page).count("data:image/png") == 1
