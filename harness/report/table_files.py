"""The report's data tables (harness.report.data_tables) as files: CSV with raw values, LaTeX with every value
from records escaped.

CSV: numbers as Python writes them (the shortest text that reads back to the same float), booleans as True/False,
an undefined value as an empty cell. LaTeX: a booktabs tabular (\\usepackage{booktabs}), floats to four significant
digits, an undefined value as "--"; every text cell and header is data, so each of & % $ # _ { } ~ ^ \\ is escaped.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.records.whole_file import write_whole
from harness.report.data_tables import DataTable, Value

CSV_SUFFIX = ".csv"
LATEX_SUFFIX = ".tex"

_LATEX_SPECIAL = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}
_LATEX_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _LATEX_SPECIAL))
_LINE_BREAK_RE = re.compile(r"\s*[\r\n]+\s*")


def latex_escape(text: str) -> str:
    """`text` as LaTeX typesets it literally: each special character replaced in one pass (so an escape's own
    backslash is never escaped again), line breaks as a space (a blank line would end the table's paragraph)."""
    return _LATEX_SPECIAL_RE.sub(lambda m: _LATEX_SPECIAL[m.group()], _LINE_BREAK_RE.sub(" ", text))


def _csv_value(value: Value) -> Value:
    return "" if value is None else value


def write_csv(table: DataTable, out_dir: Path) -> Path:
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(table.columns)
    writer.writerows([_csv_value(row[c]) for c in table.columns] for row in table.rows)
    return write_whole(Path(out_dir) / f"{table.name}{CSV_SUFFIX}", text.getvalue())


def latex_cell(value: Value) -> str:
    if value is None:
        return "--"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return ("$\\infty$" if value > 0 else "$-\\infty$") if math.isinf(value) else f"{value:.4g}"
    if isinstance(value, int):
        return str(value)
    return latex_escape(value)


def _numeric(values: Iterable[Value]) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present)


def _line(cells: Sequence[str]) -> str:
    return " & ".join(cells) + r" \\"


def latex_table(table: DataTable) -> str:
    """The table as a booktabs tabular: numeric columns right-aligned, the others left."""
    align = "".join("r" if _numeric(row[c] for row in table.rows) else "l" for c in table.columns)
    lines = [
        f"\\begin{{tabular}}{{{align}}}",
        r"\toprule",
        _line([latex_escape(c) for c in table.columns]),
        r"\midrule",
        *(_line([latex_cell(row[c]) for c in table.columns]) for row in table.rows),
        r"\bottomrule",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"


def write_latex(table: DataTable, out_dir: Path) -> Path:
    return write_whole(Path(out_dir) / f"{table.name}{LATEX_SUFFIX}", latex_table(table))
