"""The report's data tables (harness.report.data_tables) as files: CSV with raw values, LaTeX with every value
from records escaped.

Text from records, manifests and models is data in both: never a control sequence or live content. CSV: numbers as
Python writes them (the shortest text that reads back to the same float), booleans as True/False, an undefined value
as an empty cell; a text cell with its control characters shown as symbols (harness.errors.visible), and one a
spreadsheet would take for a formula quoted. LaTeX: a booktabs tabular (\\usepackage{booktabs}), floats to four
significant digits, an undefined value as "--"; every text cell and header is data, so each of & % $ # _ { } ~ ^ \\
< > is escaped and each control character shown as its code point.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.errors import visible
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
    # Outside the T1 font encoding LaTeX typesets these as inverted exclamation and question marks.
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
_LATEX_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _LATEX_SPECIAL))
_LINE_BREAK_RE = re.compile(r"\s*[\r\n]+\s*")
# A spreadsheet runs a cell starting with one of these as a formula (OWASP's CSV injection rule; a leading tab or
# carriage return, the rule's other two, is a control picture by then).
_FORMULA_START = ("=", "+", "-", "@")


def _code_points(text: str) -> str:
    """Each character visible() would show as a symbol shown as its code point instead, as pdfLaTeX knows no control
    picture and stops with an error at one."""
    return "".join(char if visible(char) == char else f"<U+{ord(char):04X}>" for char in text)


def latex_escape(text: str) -> str:
    """`text` as LaTeX typesets it literally: line breaks as a space (a blank line would end the table's paragraph),
    other control characters as their code points, each special character replaced in one pass (so an escape's own
    backslash is never escaped again)."""
    shown = _code_points(_LINE_BREAK_RE.sub(" ", text))
    return _LATEX_SPECIAL_RE.sub(lambda m: _LATEX_SPECIAL[m.group()], shown)


def csv_text(text: str) -> str:
    """A text cell as data: control characters as symbols, and a single quote before a formula's first character."""
    shown = visible(text)
    return f"'{shown}" if shown.startswith(_FORMULA_START) else shown


def _csv_value(value: Value) -> Value:
    if value is None:
        return ""
    return csv_text(value) if isinstance(value, str) else value  # numbers stay numbers, a negative one included


def write_csv(table: DataTable, out_dir: Path) -> Path:
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow([csv_text(column) for column in table.columns])
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
