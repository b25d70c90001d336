"""report.md's semantic section: both repetition rules per condition, the tasks frozen by one only, and the plot."""

from __future__ import annotations

from harness.report.plot_files import SEMANTIC_VS_RRR
from harness.report._semantic import SemanticReport
from harness.report.document import Block, Figure, Paragraph, Section, Table
from harness.metrics.semantic import (
    COMPARISON_HEADER,
    DISAGREEMENT_HEADER,
    comparison_cells,
    disagreement_rows,
    rule_sentence,
)


def semantic_section(semantic: SemanticReport) -> Section:
    """Both rules per condition, the tasks they disagree on, and the plot of one against the other."""
    conditions, stats = semantic.conditions, semantic.embedding
    disagreements = [[c.label, *row] for c in conditions for row in disagreement_rows(c.comparison)]
    rows = [[c.label, *comparison_cells(c.comparison)] for c in conditions]
    blocks: list[Block] = [
        Paragraph(
            f"{rule_sentence(semantic.threshold, stats.model, semantic.thresholds)} {stats.distinct} distinct "
            f"reflections: {stats.embedded} embedded for this report in {stats.embed_seconds:.1f} s, "
            f"{stats.distinct - stats.embedded} read from the embedding cache."
        ),
        Table(["condition", *COMPARISON_HEADER], rows),
        Paragraph(f"Tasks frozen by one rule and not the other: {len(disagreements)}."),
    ]
    if disagreements:
        blocks.append(Table(["condition", *DISAGREEMENT_HEADER], disagreements))
    blocks.append(Figure("Semantic RRR against RRR", SEMANTIC_VS_RRR))
    return Section("Semantic repetition beside RRR", blocks)
