"""Confidence intervals of shares: scipy's Wilson score interval, which stays in [0, 1] at k = 0 or k = n."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

CONFIDENCE = 0.95


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (scipy.stats.binomtest(...).proportion_ci)."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"a Wilson interval needs 0 <= successes <= n and n > 0, got {successes}/{n}.")
    # Imported here: scipy.stats costs every process that merely imports the metrics (each run, each engine of a
    # killed and resumed run) a second or two before its first trial.
    from scipy.stats import binomtest

    interval = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)


class Share(BaseModel):
    """k of n, as a share with its 95% Wilson interval; share and bounds are None when n is 0."""

    model_config = ConfigDict(frozen=True)

    successes: int = Field(ge=0)
    n: int = Field(ge=0)
    share: float | None
    low: float | None
    high: float | None


def share(successes: int, n: int) -> Share:
    if n == 0:
        return Share(successes=0, n=0, share=None, low=None, high=None)
    low, high = wilson_interval(successes, n)
    return Share(successes=successes, n=n, share=successes / n, low=low, high=high)


class ConditionIntervals(BaseModel):
    """A condition's solved tasks and object-mentioning reflections as shares with their 95% Wilson intervals."""

    model_config = ConfigDict(frozen=True)

    solved: Share = Field(description="Tasks solved / tasks (a task counts once however many repeats).")
    strict: Share = Field(description="Reflections naming the object by the strict rule / reflections.")
    normalized: Share = Field(description="Reflections naming the object by the normalized rule / reflections.")
