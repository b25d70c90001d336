"""The user documentation as tests read it: README.md and docs/*.md, their shell commands and their links."""

from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from tests.runner import ROOT

PAGES: tuple[Path, ...] = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
PARSER = MarkdownIt("commonmark").enable("table")


def name(page: Path) -> str:
    """The page as the repository names it (`README.md`, `docs/metrics.md`)."""
    return page.relative_to(ROOT).as_posix()


def tokens(page: Path) -> list[Token]:
    return PARSER.parse(page.read_text())


def bash_blocks(page: Path) -> list[str]:
    """The text of every ```bash block of a page, in order."""
    return [t.content for t in tokens(page) if t.type == "fence" and t.info.strip() == "bash"]


def _without_comment(line: str) -> str:
    """A shell line without its trailing `# comment` (a `#` inside quotes or a word is kept)."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def commands(block: str) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments dropped, whitespace collapsed."""
    found = []
    for line in block.replace("\\\n", " ").splitlines():
        command = " ".join(_without_comment(line).split())
        if command:
            found.append(command)
    return found


def page_commands(page: Path) -> list[str]:
    return [command for block in bash_blocks(page) for command in commands(block)]


def all_commands() -> list[str]:
    """Every distinct command of the documentation, in reading order (README first, then docs/ by name)."""
    return list(dict.fromkeys(command for page in PAGES for command in page_commands(page)))


def text() -> str:
    """All pages as one text."""
    return "\n".join(page.read_text() for page in PAGES)
