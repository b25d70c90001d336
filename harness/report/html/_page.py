"""The page assembled: the template, its CSS and script (files beside this package, read when a page is built),
the report's document, the filters, the groups and the trajectories, in one file that needs nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from harness.records.whole_file import write_whole
from harness.report.document import render_html
from harness.report.html._cards import task_sections
from harness.report.html._filters import filters_html, legend_html
from harness.report.html._model import Page
from harness.report.html._text import esc
from harness.report.html._trajectories import TrajectoryPool

HTML_FILE = "report.html"
ASSETS = Path(__file__).resolve().parent / "assets"
_SLOT_RE = re.compile(r"\{\{(\w+)\}\}")


def asset(name: str) -> str:
    """A file of assets/ (a template, CSS, a script), as text."""
    return (ASSETS / name).read_text(encoding="utf-8")


def fill(template: str, slots: dict[str, str]) -> str:
    """Every {{name}} replaced in one pass, so a slot's content is never searched for slots itself."""
    return _SLOT_RE.sub(lambda match: slots[match.group(1)], template)


def render_page(page: Page, folder: Path) -> str:
    """The page as one HTML document; the report's images are read from `folder` and embedded."""
    pool = TrajectoryPool()
    return fill(
        asset("page.html"),
        {
            "title": esc(page.title),
            "css": asset("page.css"),
            "report": render_html(page.document, folder),
            "reflections": _reflections(page, pool),
            "trajectories": pool.script_json(),
            "js": asset("page.js"),
        },
    )


def _reflections(page: Page, pool: TrajectoryPool) -> str:
    """The legend, the filters and the groups; a sentence when there is no group."""
    if not page.groups:
        return '<p class="legend">No trial records to show.</p>'
    sections = task_sections(page.groups, page.conditions, pool, by_task=page.sections == "by_task")
    return "\n".join(
        [
            legend_html(page.mention_note, page.thresholds),
            filters_html(page.condition_name, page.conditions, page.groups),
            f'<div id="groups">\n{sections}\n</div>',
            '<p id="none-shown" hidden>No task matches the filters.</p>',
        ]
    )


def write_page(page: Page, out_dir: Path, name: str = HTML_FILE) -> Path:
    """The page as `name` in `out_dir`, written whole (harness.records.whole_file): a reader never sees half of it."""
    out_dir = Path(out_dir)
    return write_whole(out_dir / name, render_page(page, out_dir))
