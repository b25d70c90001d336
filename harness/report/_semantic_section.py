"""report.md's semantic section: both repetition rules per condition, the tasks frozen by one only, and the plot."""

from __future__ import annotations

from harness.report._plots import SEMANTIC_VS_RRR
from harness.report._semantic import SemanticReport
from harness.metrics.semantic import (
    COMPARISON_HEADER,
    DISAGREEMENT_HEADER,
    comparison_cells,
    disagreement_rows,
    markdown_table,
    rule_sentence,
)


def semantic_lines(semantic: SemanticReport) -> list[str]:
    """The section's lines, ready to join into report.md."""
    conditions, stats = semantic.conditions, semantic.embedding
    disagreements = [[c.label, *row] for c in conditions for row in disagreement_rows(c.comparison)]
    rows = [[c.label, *comparison_cells(c.comparison)] for c in conditions]
    return [
        "## Semantic repetition beside RRR",
        "",
        f"{rule_sentence(semantic.threshold, stats.model)} {stats.distinct} distinct reflections: {stats.embedded} "
        f"embedded for this report in {stats.embed_seconds:.1f} s, {stats.distinct - stats.embedded} read from the "
        "embedding cache.",
        "",
        markdown_table(["condition", *COMPARISON_HEADER], rows),
        "",
        f"Tasks frozen by one rule and not the other: {len(disagreements)}.",
        "",
        *([markdown_table(["condition", *DISAGREEMENT_HEADER], disagreements), ""] if disagreements else []),
        f"![Semantic RRR against RRR]({SEMANTIC_VS_RRR})",
    ]
