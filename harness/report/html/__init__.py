"""report.html: one self-contained page per report (inline CSS and script, plots embedded, no network), where the
reflections of every task can be read trial by trial beside what the metrics made of them.

`run_page` builds the page of runs, `write_page` writes any page; the audit builds its own `Page` of the published
logs from the same parts (`Group`, `Entry`). `write_index` writes index.html, the table of every run, sweep and audit
under a folder (`IndexRow`).
"""

from harness.report.html._index_model import IndexRow, Kind
from harness.report.html._index_page import INDEX_FILE, render_index, write_index
from harness.report.html._model import DetailBlock, DetailItem, Entry, Group, Mention, Nearest, Page
from harness.report.html._page import HTML_FILE, render_page, write_page
from harness.report.html._run_page import document_page, run_page

__all__ = [
    "HTML_FILE",
    "INDEX_FILE",
    "IndexRow",
    "Kind",
    "DetailBlock",
    "DetailItem",
    "Entry",
    "Group",
    "Mention",
    "Nearest",
    "Page",
    "document_page",
    "render_index",
    "render_page",
    "run_page",
    "write_index",
    "write_page",
]
