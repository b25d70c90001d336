"""One published source's figures: memory, frozen memory, average RRR, and Spearman of RRR against trials."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.task_rrr import TaskRRR
from harness.metrics.spearman import SPEARMAN_CONVENTIONS, SpearmanConvention, SpearmanResult, spearman_rrr_vs_trials


class AuditSpearman(SpearmanResult):
    """A Spearman result, with why rho is missing when it is."""

    reason: str | None = Field(description="Why rho is None (no trial counts, too few tasks, a constant); else None.")


class SourceAudit(BaseModel):
    """The audit row of one readable source."""

    model_config = ConfigDict(frozen=True)

    domain: str = Field(description="alfworld | webshop | hotpotqa | humaneval-py | ...")
    source: str = Field(description="Path relative to the logs root.")
    n_tasks: int = Field(ge=0, description="Tasks in the source.")
    n_with_memory: int = Field(ge=0, description="Tasks with at least one reflection.")
    n_with_rrr: int = Field(ge=0, description="Tasks with at least two reflections, so a defined RRR.")
    n_frozen: int = Field(ge=0, description="Tasks with RRR >= 0.5.")
    frozen_ratio_over_memory: float | None = Field(description="n_frozen / n_with_memory; None when that is 0.")
    frozen_ratio_over_rrr: float | None = Field(description="n_frozen / n_with_rrr; None when that is 0.")
    avg_rrr_frozen: float | None = Field(description="Mean RRR over frozen tasks; None without one.")
    avg_rrr_with_rrr: float | None = Field(description="Mean RRR over tasks with a defined RRR; None without one.")
    reflections_in_frozen: int = Field(ge=0, description="Reflections held by the frozen tasks.")
    spearman_rrr_vs_trials: list[AuditSpearman] = Field(description="RRR against trials played, per convention.")


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _counted(rated: Sequence[TaskRRR], convention: SpearmanConvention) -> list[TaskRRR]:
    # The tasks harness.metrics.core.spearman_rrr_vs_trials keeps under `convention`: known here first,
    # so a missing trial count among them makes the whole figure unavailable instead of a biased subset.
    if convention == "tasks_with_rrr":
        return [t for t in rated if t.rrr is not None]
    return [t for t in rated if t.reflections >= 1]


def audit_spearman(rated: Sequence[TaskRRR], convention: SpearmanConvention) -> AuditSpearman:
    """Spearman of RRR against trials under one convention; not available when a counted task lacks trials."""
    counted = _counted(rated, convention)
    unknown = sum(t.trials is None for t in counted)
    if unknown:
        reason = f"no trial count for {unknown} of {len(counted)} tasks"
        return AuditSpearman(convention=convention, n=len(counted), rho=None, p=None, reason=reason)
    result = spearman_rrr_vs_trials(
        [(t.rrr, t.reflections, t.trials) for t in counted if t.trials is not None], convention
    )
    why = None if result.rho is not None else (
        "fewer than 3 tasks" if result.n < 3 else "RRR or trials played takes a single value"
    )
    return AuditSpearman(**result.model_dump(), reason=why)


def source_audit(domain: str, source: str, rated: Sequence[TaskRRR]) -> SourceAudit:
    """The audit row of one source from its tasks' figures."""
    with_memory = [t for t in rated if t.reflections >= 1]
    with_rrr = [t.rrr for t in rated if t.rrr is not None]
    frozen = [t for t in rated if t.frozen]
    return SourceAudit(
        domain=domain,
        source=source,
        n_tasks=len(rated),
        n_with_memory=len(with_memory),
        n_with_rrr=len(with_rrr),
        n_frozen=len(frozen),
        frozen_ratio_over_memory=_ratio(len(frozen), len(with_memory)),
        frozen_ratio_over_rrr=_ratio(len(frozen), len(with_rrr)),
        avg_rrr_frozen=_mean([t.rrr for t in frozen if t.rrr is not None]),
        avg_rrr_with_rrr=_mean(with_rrr),
        reflections_in_frozen=sum(t.reflections for t in frozen),
        spearman_rrr_vs_trials=[audit_spearman(rated, convention) for convention in SPEARMAN_CONVENTIONS],
    )
