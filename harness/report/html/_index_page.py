"""index.html: every run, sweep and audit under a folder as one table, sortable by any column and filterable, in
one self-contained page (inline CSS and script, no network).

Every value is escaped as text (a control character shown as a symbol); the only links are to pages that exist,
each a relative path percent-encoded (harness.report.document.local_target).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.records.whole_file import write_whole
from harness.report.document import local_target
from harness.report.html._index_model import KINDS, IndexRow
from harness.report.html._page import asset, fill
from harness.report.html._text import esc, esc_line

INDEX_FILE = "index.html"
NONE = '<span class="none">none</span>'

# (heading, type): a number column sorts by the value in its cells' data-v, a text column by what it shows.
COLUMNS = (
    ("kind", "text"),
    ("path", "text"),
    ("status", "text"),
    ("domain", "text"),
    ("conditions", "text"),
    ("models", "text"),
    ("started", "text"),
    ("trials", "number"),
    ("headline figures", "text"),
    ("report", "text"),
)


def _lines(values: Sequence[str]) -> str:
    return "".join(f"<div>{esc_line(value)}</div>" for value in values)


def _path(path: str) -> str:
    # A long path may break after each '/', as the report's paths do.
    return "<code>" + esc_line(path).replace("/", "/<wbr>") + "</code>"


def _trials(row: IndexRow) -> str:
    if row.trials_done is None:
        return "<td></td>"
    planned = "?" if row.trials_planned is None else str(row.trials_planned)
    return f'<td data-v="{row.trials_done}">{row.trials_done} / {planned}</td>'


def _report(row: IndexRow) -> str:
    if row.report is None:
        return NONE
    return f'<a href="{esc(local_target(row.report))}">{esc_line(Path(row.report).name)}</a>'


def _haystack(row: IndexRow) -> str:
    """What the filter box searches, lower-cased as the script lower-cases what is typed."""
    words = [row.kind, row.path, row.status, *row.domains, *row.conditions, *row.models, *row.figures, *row.search]
    return "\n".join(words).lower()


def _indices(values: Sequence[str], options: Sequence[str]) -> str:
    return " ".join(str(options.index(value)) for value in values)


def _row(row: IndexRow, domains: Sequence[str], statuses: Sequence[str]) -> str:
    cells = [
        f"<td>{esc_line(row.kind)}</td>",
        f"<td>{_path(row.path)}</td>",
        f"<td>{esc_line(row.status)}</td>",
        f"<td>{_lines(row.domains)}</td>",
        f"<td>{_lines(row.conditions)}</td>",
        f"<td>{_lines(row.models)}</td>",
        f"<td>{esc_line(row.started or '')}</td>",
        _trials(row),
        f'<td class="figs">{_lines(row.figures)}</td>',
        f"<td>{_report(row)}</td>",
    ]
    data = (
        f'data-kind="{esc(row.kind)}" data-d="{_indices(row.domains, domains)}" '
        f'data-st="{statuses.index(row.status)}" data-q="{esc_line(_haystack(row))}"'
    )
    return f"<tr {data}>{''.join(cells)}</tr>"


def _select(name: str, legend: str, options: Sequence[str], values: Sequence[str] | None = None) -> str:
    """A select whose option values are indices (or `values`), so no recorded text is ever compared as markup."""
    keys = values if values is not None else [str(k) for k in range(len(options))]
    choices = "".join(f'<option value="{esc(key)}">{esc_line(text)}</option>' for key, text in zip(keys, options))
    return (
        f'<fieldset><legend>{esc(legend)}</legend><select id="f-{name}"><option value="">all</option>{choices}'
        "</select></fieldset>"
    )


def _filters(rows: Sequence[IndexRow], domains: Sequence[str], statuses: Sequence[str]) -> str:
    kinds = [kind for kind in KINDS if any(row.kind == kind for row in rows)]
    parts = [
        (
            '<fieldset><legend>find</legend><input type="search" id="f-q" '
            'placeholder="path, status, condition, model, task id"></fieldset>'
        ),
        _select("kind", "kind", kinds, kinds),
        _select("domain", "domain", domains),
        _select("status", "status", statuses),
        f'<output id="shown">{len(rows)} of {len(rows)} shown</output>',
    ]
    return f'<form id="filters" onsubmit="return false">{"".join(parts)}</form>'


def _table(rows: Sequence[IndexRow], domains: Sequence[str], statuses: Sequence[str]) -> str:
    # The rows come sorted by path: the path column says so from the start.
    head = "".join(
        f'<th aria-sort="{"ascending" if name == "path" else "none"}" data-type="{kind}">'
        f'<button type="button" data-col="{k}">{esc(name)}</button></th>'
        for k, (name, kind) in enumerate(COLUMNS)
    )
    body = "\n".join(_row(row, domains, statuses) for row in rows)
    return f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>"


def render_index(title: str, note: str, rows: Sequence[IndexRow]) -> str:
    """The page: `title`, `note` (what it lists, as text), then the filters and the rows in the order given."""
    domains = sorted({domain for row in rows for domain in row.domains})
    statuses = sorted({row.status for row in rows})
    return fill(
        asset("index.html"),
        {
            "title": esc_line(title),
            "css": asset("page.css") + asset("index.css"),
            "note": esc(note),
            "filters": _filters(rows, domains, statuses),
            "table": _table(rows, domains, statuses),
            "js": asset("index.js"),
        },
    )


def write_index(title: str, note: str, rows: Sequence[IndexRow], out_dir: Path) -> Path:
    """The page as index.html in `out_dir`, written whole."""
    return write_whole(Path(out_dir) / INDEX_FILE, render_index(title, note, rows))
