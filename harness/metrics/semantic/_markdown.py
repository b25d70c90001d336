"""Markdown cells shared by audit.md and report.md: a comparison of the two rules, and the tasks they disagree on."""

from __future__ import annotations

from harness.metrics.semantic._compare import RepetitionComparison
from harness.metrics.thresholds import DEFAULT_THRESHOLDS, Thresholds

NOT_AVAILABLE = "n/a"

COMPARISON_HEADER = [
    "with RRR",
    "avg RRR",
    "avg semantic RRR",
    "frozen, RRR",
    "frozen, semantic",
    "frozen, both",
    "frozen verdicts agree",
]
DISAGREEMENT_HEADER = ["task", "reflections", "RRR", "semantic RRR", "frozen only by"]


def _number(value: float | None) -> str:
    return NOT_AVAILABLE if value is None else f"{value:.2f}"


def rule_sentence(threshold: float, model: str, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> str:
    """What semantic RRR is, next to RRR at `thresholds` (difflib's), and the model whose embeddings it compared."""
    return (
        f"Semantic RRR: the share of reflections after the first whose cosine similarity to some earlier reflection "
        f"of the same task is >= {threshold}, with sentence embeddings of {model}; frozen: semantic RRR >= "
        f"{thresholds.frozen_threshold:g}, as for RRR (difflib {thresholds.repeat_rule}). Both are defined, and "
        "averaged, over tasks with at least two reflections only."
    )


def comparison_cells(c: RepetitionComparison) -> list[str]:
    """The cells under COMPARISON_HEADER."""
    return [
        str(c.n_with_rrr),
        _number(c.mean_rrr),
        _number(c.mean_semantic_rrr),
        str(c.n_frozen),
        str(c.n_frozen_semantic),
        str(c.n_frozen_both),
        NOT_AVAILABLE if c.frozen_agreement is None else f"{c.frozen_agreement:.0%}",
    ]


def disagreement_rows(c: RepetitionComparison) -> list[list[str]]:
    """One row under DISAGREEMENT_HEADER per task frozen by one rule only: difflib's first, then semantic's."""
    rows = []
    for tasks, frozen_by in ((c.frozen_only_difflib, "RRR"), (c.frozen_only_semantic, "semantic RRR")):
        rows += [[t.task_id, str(t.reflections), _number(t.rrr), _number(t.semantic_rrr), frozen_by] for t in tasks]
    return rows


def _row(cells: list[str]) -> str:
    # A HotpotQA task is named by its question, which may hold a "|" that would split the cell.
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table, with "|" inside a cell escaped."""
    return "\n".join([_row(header), "|" + "---|" * len(header), *(_row(row) for row in rows)])
