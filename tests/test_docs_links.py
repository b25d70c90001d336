"""Every relative link and image of README.md and docs/*.md points to a file that exists, and an anchor to a heading
of that page (as GitHub names headings)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it.token import Token

from tests.doc_pages import PAGES, name, tokens
from tests.runner import ROOT


def _text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, -1 on repeats."""
    found: set[str] = set()
    parsed = tokens(page)
    for index, token in enumerate(parsed):
        if token.type != "heading_open":
            continue
        slug = re.sub(r"[^\w\- ]", "", _text(parsed[index + 1]).strip().lower()).replace(" ", "-")
        repeat, candidate = 0, slug
        while candidate in found:
            repeat += 1
            candidate = f"{slug}-{repeat}"
        found.add(candidate)
    return found


def targets(page: Path) -> list[str]:
    """Every link and image target of a page, in order."""
    found = []
    for token in tokens(page):
        for child in token.children or ():
            target = child.attrs.get("href") if child.type == "link_open" else child.attrs.get("src")
            if child.type in ("link_open", "image") and isinstance(target, str):
                found.append(target)
    return found


def broken(page: Path) -> list[str]:
    wrong = []
    for target in targets(page):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue
        file = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not file.exists():
            wrong.append(f"{target}: no such file")
        elif parts.fragment and file.suffix == ".md" and parts.fragment not in anchors(file):
            wrong.append(f"{target}: no heading #{parts.fragment} in {file.name}")
    return wrong


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_relative_link_points_to_a_file_and_heading_that_exist(page: Path) -> None:
    assert broken(page) == []


def test_the_readme_links_every_page_of_docs() -> None:
    linked = {(ROOT / target.split("#")[0]).resolve() for target in targets(PAGES[0])}
    pages = {page.resolve() for page in PAGES[1:]}
    assert sorted(name(page) for page in pages - linked) == []


def test_a_broken_link_and_a_missing_heading_are_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## The report page (report.html)\n")
    page.write_text(
        "# Page\n\n[ok](other.md#the-report-page-reporthtml) [gone](gone.md) [no heading](other.md#nowhere) "
        "[here](#page) [away](https://example.org/x.md)\n"
    )
    assert broken(page) == ["gone.md: no such file", "other.md#nowhere: no heading #nowhere in other.md"]
