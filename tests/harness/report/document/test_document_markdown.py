"""The document's markdown: data in any block stays the text it is when a CommonMark reader (GitHub's tables on)
reads it back; markup and links come only from the document's own types."""

from __future__ import annotations

from pathlib import PurePath

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
    local_target,
    render_markdown,
    visible,
)
from tests.harness.report.commonmark import TEXT_TOKENS, every_token, inline_text, link_targets, parse, tables

# Record, manifest and model values written to be read as markup, a link, raw HTML, a block or a table cell.
HOSTILE = [
    "[open](\x01javascript:alert(1))",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<https://example.com>",
    "**bold** _em_ *em* `code` ``two`` ~~struck~~",
    "a | b | c",
    "line one\nline two\r\n# heading\n- item",
    "# not a heading #",
    "- not a list",
    "+ not a list",
    "1. not a list",
    "2) not a list",
    "> not a quote",
    "    not code",
    "```\nnot a fence\n```",
    "~~~ not a fence",
    "&lt;b&gt; &amp; &#106;avascript&#58;alert(1)",
    "[ref]: javascript:alert(1)",
    "![image](x.png) [ref] [ref][]",
    "https://example.com/a_b",
    "\\[escaped\\] and a trailing \\",
    "snake_case __dunder__ _lead trail_ x_",
    "\u202eevil\u2066 \x1b[31mred\x1b[0m \x85",
    "",
]
# Inline markup a reader could make of text; none may appear where the document put only text.
MARKUP = {
    "link_open", "image", "em_open", "strong_open", "s_open", "html_inline", "html_block", "code_inline",
    "softbreak", "hardbreak",
}


def _texts(markdown: str) -> list[str]:
    return [inline_text(token) for token in parse(markdown) if token.type == "inline"]


def _markup(markdown: str) -> list[str]:
    return [token.type for token in every_token(markdown) if token.type in MARKUP]


def _blocks(markdown: str) -> list[str]:
    return [token.type for token in parse(markdown) if token.nesting >= 0 and token.type != "inline"]


@pytest.mark.parametrize("data", [d for d in HOSTILE if d])
def test_data_in_a_paragraph_list_or_heading_is_exactly_its_text(data: str) -> None:
    document = Document(
        data, [Paragraph(data), Paragraph("before ", data, " after"), BulletList([data, [data, ": ", data]])]
    )
    markdown = render_markdown(document)
    assert _markup(markdown) == [] and link_targets(markdown) == []
    assert _blocks(markdown) == ["heading_open", "paragraph_open", "paragraph_open", "bullet_list_open",
                                 "list_item_open", "paragraph_open", "list_item_open", "paragraph_open"]
    shown = visible(data)
    assert _texts(markdown) == [shown, shown, f"before {shown} after", shown, f"{shown}: {shown}"]


@pytest.mark.parametrize("data", HOSTILE)
def test_data_in_a_table_cell_stays_in_its_cell(data: str) -> None:
    markdown = render_markdown(Document("t", [Table(["a", data, "c"], [[data, Code(data), Strong(data)]])]))
    [table] = tables(markdown)
    shown = visible(data).strip()
    assert table == [["a", shown, "c"], [shown, visible(data), shown]]
    assert [t for t in _markup(markdown) if t not in ("code_inline", "strong_open")] == []
    assert link_targets(markdown) == []


@pytest.mark.parametrize("data", HOSTILE)
def test_data_in_code_or_a_link_label_is_text_and_the_link_goes_where_the_report_said(data: str) -> None:
    markdown = render_markdown(
        Document("t", [Paragraph("run ", Code(data), " in ", Link.to_path(data, "runs/a b"), ".")])
    )
    tokens = every_token(markdown)
    codes = [t.content for t in tokens if t.type == "code_inline"]
    assert codes == ([visible(data)] if data else [])
    assert link_targets(markdown) == ["runs/a%20b"]
    label = tokens[[t.type for t in tokens].index("link_open") + 1 : [t.type for t in tokens].index("link_close")]
    assert all(t.type in TEXT_TOKENS for t in label) and "".join(t.content for t in label) == visible(data)


def test_a_link_is_only_ever_to_a_relative_path_or_an_anchor() -> None:
    for target in ("javascript:alert(1)", "\x01javascript:alert(1)", "https://example.com", "/etc/passwd", "//host/x",
                   "a b", "a\nb", "data:text/html,x", "#a b", "&#106;avascript:x"):
        with pytest.raises(ValueError, match="not a target the report made"):
            Link("label", target)
    with pytest.raises(ValueError, match="absolute"):
        local_target(PurePath("/tmp/run"))
    # A directory named like a link or a URL becomes a relative path of its own.
    assert local_target("javascript:alert(1)") == "javascript%3Aalert%281%29"
    assert local_target("../runs/\x01[x](y)\n|z") == "../runs/%01%5Bx%5D%28y%29%0A%7Cz"
    assert local_target("sweep/strategy=no_memory,experiment.seed=1") == "sweep/strategy=no_memory,experiment.seed=1"
    assert Link("plot", "#img-a.png").target == "#img-a.png"


def test_the_document_keeps_the_reports_layout() -> None:
    document = Document(
        "Report: run",
        [
            Paragraph("Written by ", Code("reflexion-report"), "."),
            Section(
                "Runs",
                [
                    Table(["run", "directory"], [["run_a", Link.to_path("../run_a", "../run_a")]]),
                    Section(["Frozen of ", Code("logs/x")], [BulletList(["one", "two"])]),
                ],
            ),
            Figure("a plot", "plot.png"),
            Paragraph(Strong("no"), " for RRR >= 0.5 (n = 3), 50% of x_y"),
        ],
    )
    assert render_markdown(document) == (
        "# Report: run\n\nWritten by `reflexion-report`.\n\n## Runs\n\n| run | directory |\n|---|---|\n"
        "| run_a | [../run_a](../run_a) |\n\n### Frozen of `logs/x`\n\n- one\n- two\n\n![a plot](plot.png)\n\n"
        "**no** for RRR >= 0.5 (n = 3), 50% of x_y\n"
    )


def test_code_holding_backticks_is_fenced_by_more_and_a_row_of_the_wrong_length_is_refused() -> None:
    codes = [Paragraph(Code("a `b` c")), Paragraph(Code("`x`")), Paragraph(Code("  "))]
    markdown = render_markdown(Document("t", codes))
    assert [t.content for t in every_token(markdown) if t.type == "code_inline"] == ["a `b` c", "`x`", "  "]
    with pytest.raises(ValueError, match="row 1 has 1 cells under a header of 2"):
        Table(["a", "b"], [["1", "2"], ["3"]])


def test_control_characters_and_direction_overrides_are_shown_not_obeyed() -> None:
    assert visible("a\nb\r\tc\x00\x1b[0m\x7f") == "a\u240ab\u240d\u2409c\u2400\u241b[0m\u2421"
    assert visible("\u202eevil\x85") == "<U+202E>evil<U+0085>"
