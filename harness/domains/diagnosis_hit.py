"""Whether a reflection names where its trial was lost, as the diagnosis rubrics define it (tests/fixtures/diagnosis):
the decisive unit among the units it points at; where the ground truth has no decisive unit (HotpotQA's em_format,
HumanEval's wrong_internal_test), the cause it names is the trial's category, never for `other`.

The rubrics' single yes or no, used by their agreement checks and by the audit's figure on the published logs. The
run's measures (`harness.metrics.diagnosis`) keep the two halves apart: the exact unit where there is one, the cause
everywhere.
"""

from __future__ import annotations

from harness.records.diagnosis import GroundTruth, ReflectionClaims


def names_the_loss(truth: GroundTruth, claims: ReflectionClaims) -> bool | None:
    """The rubrics' hit; None on an unscored trial."""
    if not truth.scored:
        return None
    if truth.decisive_step is not None:
        return truth.decisive_step in claims.claimed_steps
    return claims.cause is not None and claims.cause == truth.category and truth.category != "other"
