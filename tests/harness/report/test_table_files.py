"""CSV and LaTeX writers of the report's data tables: raw values in CSV, every LaTeX special character escaped."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from harness.report.data_tables import DataTable
from harness.report.table_files import latex_cell, latex_escape, latex_table, write_csv

SPECIALS = "&%$#_{}~^\\"


def unescape(latex: str) -> str:
    """What LaTeX typesets for our escapes: the inverse of latex_escape on one line."""
    words = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^"}
    return re.sub(r"\\text(?:backslash|asciitilde|asciicircum)\{\}|\\([&%$#_{}])",
                  lambda m: words.get(m.group(), m.group(1)), latex)  # fmt: skip


def test_every_special_character_is_escaped_and_reads_back() -> None:
    text = f"a {SPECIALS} b \\& c \\textbf{{x}}"
    escaped = latex_escape(text)
    assert unescape(escaped) == text
    # No special character is left bare: each is the start of an escape or inside one's braces.
    bare = re.sub(r"\\text(?:backslash|asciitilde|asciicircum)\{\}|\\[&%$#_{}]", "", escaped)
    assert not set(bare) & set(SPECIALS)


def test_a_line_break_in_data_cannot_end_the_table_row() -> None:
    assert latex_escape("one\n\ntwo\r\nthree") == "one two three"


def test_a_table_escapes_headers_and_text_cells_but_not_its_own_markup() -> None:
    table = DataTable(name="t", columns=["task_id", "rate"], rows=[{"task_id": "50% & $x_1$", "rate": 0.123456}])
    latex = latex_table(table)
    assert "task\\_id & rate \\\\" in latex
    assert "50\\% \\& \\$x\\_1\\$ & 0.1235 \\\\" in latex
    assert latex.startswith("\\begin{tabular}{lr}\n\\toprule\n")


def test_undefined_booleans_and_infinity_in_latex() -> None:
    assert [latex_cell(v) for v in (None, True, False, float("inf"), 3)] == ["--", "yes", "no", "$\\infty$", "3"]


def test_csv_keeps_numbers_whole_and_an_undefined_value_empty(tmp_path: Path) -> None:
    value = 0.1 + 0.2
    table = DataTable(name="t", columns=["a", "b", "c"], rows=[{"a": value, "b": None, "c": 'say "x", then y'}])
    path = write_csv(table, tmp_path)
    rows = list(csv.reader(path.open(newline="")))
    assert rows == [["a", "b", "c"], [repr(value), "", 'say "x", then y']]
    assert float(rows[1][0]) == value
