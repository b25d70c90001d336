"""The trace commands' markdown tables: a cell is one line of data that cannot split its row or reach a terminal as
a control sequence (rule texts, actions and claims come from models)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.errors import visible


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The table's lines: a newline in a cell becomes a space, other control characters symbols, '|' escaped."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(visible(cell.replace("\n", " ")).replace("|", "\\|") for cell in row) + " |"
                    for row in rows]
