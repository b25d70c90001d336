"""audit.md's semantic section: both rates per source, and every task that only one rule calls frozen."""

from __future__ import annotations

from harness.audit.semantic_audit import SemanticAudit
from harness.metrics.semantic import (
    COMPARISON_HEADER,
    DISAGREEMENT_HEADER,
    comparison_cells,
    disagreement_rows,
    markdown_table,
    rule_sentence,
)


def _embedding_sentence(semantic: SemanticAudit) -> str:
    e = semantic.embedding
    return (
        f"{e.distinct} distinct reflections: {e.embedded} embedded in this run in {e.embed_seconds:.1f} s, "
        f"{e.distinct - e.embedded} read from the embedding cache."
    )


def semantic_section(semantic: SemanticAudit) -> list[str]:
    """The section's lines, ready to join into audit.md."""
    rows = [[row.domain, f"`{row.source}`", *comparison_cells(row.comparison)] for row in semantic.sources]
    disagreements = [
        [f"`{row.source}`", *cells] for row in semantic.sources for cells in disagreement_rows(row.comparison)
    ]
    return [
        "## Semantic repetition beside RRR",
        "",
        f"{rule_sentence(semantic.threshold, semantic.embedding.model)} {_embedding_sentence(semantic)}",
        "",
        markdown_table(["domain", "source", *COMPARISON_HEADER], rows),
        "",
        f"### Tasks frozen by one rule and not the other ({len(disagreements)})",
        "",
        markdown_table(["source", *DISAGREEMENT_HEADER], disagreements)
        if disagreements
        else "None: both rules call the same tasks frozen.",
    ]
