"""Agreement between two labellings of the same items: the confusion matrix and Cohen's kappa.

What a measure is checked with before it is trusted: a rule's labels against labels given by reading.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field


class Agreement(BaseModel):
    """How two labellings of the same items agree."""

    model_config = ConfigDict(frozen=True)

    labels: list[str] = Field(description="The labels, in the matrix's order.")
    matrix: list[list[int]] = Field(description="matrix[i][j]: items the reference gave labels[i] and the rule labels[j].")
    n: int = Field(ge=0)
    observed: float | None = Field(description="Share of items labelled alike; None without items.")
    kappa: float | None = Field(description="Cohen's kappa; None without items, or when chance agreement is 1.")


def agreement(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> Agreement:
    """(reference label, rule label) per item -> the confusion matrix and Cohen's kappa over `labels`."""
    unknown = {label for pair in pairs for label in pair} - set(labels)
    if unknown:
        raise ValueError(f"labels {sorted(unknown)} are not among {list(labels)}.")
    counts = Counter(pairs)
    matrix = [[counts[(reference, rule)] for rule in labels] for reference in labels]
    n = len(pairs)
    if n == 0:
        return Agreement(labels=list(labels), matrix=matrix, n=0, observed=None, kappa=None)
    observed = sum(matrix[i][i] for i in range(len(labels))) / n
    chance = sum(sum(matrix[i]) * sum(row[i] for row in matrix) for i in range(len(labels))) / n**2
    kappa = None if chance == 1 else (observed - chance) / (1 - chance)
    return Agreement(labels=list(labels), matrix=matrix, n=n, observed=observed, kappa=kappa)
