"""The trace commands' tables keep a model's text as data: one row per row, no control sequence for a terminal."""

from __future__ import annotations

from harness.reflection.insights.markdown_table import markdown_table


def test_a_cell_cannot_split_its_row_or_steer_a_terminal() -> None:
    hostile = "rule 1 | injected\n| row |\x1b[2J\x1b]8;;http://x\x07link\u202e"
    lines = markdown_table(["rule", "count"], [[hostile, "3"]])
    assert len(lines) == 3, "a newline in a cell made a row of its own"
    row = lines[2]
    assert not any(ord(char) < 32 or char == "\u202e" for char in row), repr(row)
    assert row.count("|") - row.count("\\|") == 3, "a '|' in a cell split it"
    assert row.startswith("| rule 1 \\| injected \\| row \\|") and row.endswith(" | 3 |")


def test_plain_cells_are_written_as_they_are() -> None:
    assert markdown_table(["a", "b"], [["none*", "0/5 (0%-52%)"]]) == ["| a | b |", "|---|---|", "| none* | 0/5 (0%-52%) |"]
