"""audit.md's semantic section: both rates per source, and every task that only one rule calls frozen."""

from __future__ import annotations

from harness.audit.semantic_audit import SemanticAudit
from harness.metrics.semantic import (
    COMPARISON_HEADER,
    DISAGREEMENT_HEADER,
    comparison_cells,
    disagreement_rows,
    rule_sentence,
)
from harness.report.document import Block, Cell, Code, Paragraph, Section, Table


def _embedding_sentence(semantic: SemanticAudit) -> str:
    e = semantic.embedding
    return (
        f"{e.distinct} distinct reflections: {e.embedded} embedded in this run in {e.embed_seconds:.1f} s, "
        f"{e.distinct - e.embedded} read from the embedding cache."
    )


def semantic_section(semantic: SemanticAudit) -> Section:
    """Both rates per source, then the tasks the two rules disagree on."""
    rows: list[list[Cell]] = [[row.domain, Code(row.source), *comparison_cells(row.comparison)] for row in semantic.sources]
    disagreements: list[list[Cell]] = [
        [Code(row.source), *cells] for row in semantic.sources for cells in disagreement_rows(row.comparison)
    ]
    listed: Block = (
        Table(["source", *DISAGREEMENT_HEADER], disagreements)
        if disagreements
        else Paragraph("None: both rules call the same tasks frozen.")
    )
    return Section(
        "Semantic repetition beside RRR",
        [
            Paragraph(f"{rule_sentence(semantic.threshold, semantic.embedding.model)} {_embedding_sentence(semantic)}"),
            Table(["domain", "source", *COMPARISON_HEADER], rows),
            Section(f"Tasks frozen by one rule and not the other ({len(disagreements)})", [listed]),
        ],
    )
