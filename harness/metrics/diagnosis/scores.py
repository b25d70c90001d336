"""One reflection's diagnosis scored against its trial's ground truth: each measure 1, 0 or undefined (None).

A measure is undefined where the ground truth gives it nothing to be right about: no step measure without a decisive
step (a search-budget failure, an unscored replay), no post-mortem without a point of no return, no cause agreement
without a category. A reflection that names no step is a miss, never undefined: naming nothing is its answer.

The chance row (`expected_random`) gives each measure's expectation for a step drawn uniformly from the trial's
steps, so its values are fractions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from harness.records.diagnosis import GroundTruth, ReflectionClaims

MeasureName = Literal[
    "localises", "exact", "within_1", "within_2", "any_error", "post_mortem", "cause", "joint", "confabulated"
]


@dataclass(frozen=True)
class Measure:
    """One diagnosis measure as every table names it."""

    name: MeasureName
    heading: str
    description: str
    better: Literal["higher", "lower"] | None


MEASURES: tuple[Measure, ...] = (
    Measure("localises", "localises", "Names at least one step of its trial (one it points at unambiguously, or "
            "an action text that occurs at several steps).", None),
    Measure("exact", "exact step", "Names the decisive step (among the steps it names).", "higher"),
    Measure("within_1", "within 1", "Names a step at most 1 step from the decisive one.", "higher"),
    Measure("within_2", "within 2", "Names a step at most 2 steps from the decisive one.", "higher"),
    Measure("any_error", "some error step", "Names some step the ground truth labels an error.", "higher"),
    Measure("post_mortem", "post-mortem", "Names a step after the point of no return (the trial was already lost "
            "there).", "lower"),
    Measure("cause", "cause", "Names the ground truth's cause category.", "higher"),
    Measure("joint", "step and cause", "Names the decisive step and its cause.", "higher"),
    Measure("confabulated", "confabulated", "States an action, observation, object, output or fact its trial does "
            "not hold.", "lower"),
)
MEASURE_NAMES: tuple[MeasureName, ...] = tuple(measure.name for measure in MEASURES)
STEP_MEASURES: tuple[MeasureName, ...] = ("exact", "within_1", "within_2")


class ReflectionScore(BaseModel):
    """Each measure of one reflection (or heuristic row) on one trial: 1, 0, an expectation (the chance row), or None
    where undefined."""

    model_config = ConfigDict(frozen=True)

    localises: float | None = None
    exact: float | None = None
    within_1: float | None = None
    within_2: float | None = None
    any_error: float | None = None
    post_mortem: float | None = None
    cause: float | None = None
    joint: float | None = None
    confabulated: float | None = None

    def value(self, measure: MeasureName) -> float | None:
        value: float | None = getattr(self, measure)
        return value


def _flag(condition: bool) -> float:
    return 1.0 if condition else 0.0


def _within(claimed: Sequence[int], decisive: int, distance: int) -> bool:
    return any(abs(step - decisive) <= distance for step in claimed)


def score_claims(truth: GroundTruth, claims: ReflectionClaims) -> ReflectionScore:
    """The reflection's claims against its trial's ground truth; every measure undefined on an unscored trial."""
    if not truth.scored:
        return ReflectionScore()
    claimed = claims.claimed_steps
    decisive = truth.decisive_step
    step_defined = decisive is not None
    exact = _flag(decisive in claimed) if step_defined else None
    cause = _flag(claims.cause == truth.category) if truth.category is not None else None
    return ReflectionScore(
        localises=_flag(bool(claimed) or claims.ambiguous),
        exact=exact,
        within_1=_flag(_within(claimed, decisive, 1)) if decisive is not None else None,
        within_2=_flag(_within(claimed, decisive, 2)) if decisive is not None else None,
        any_error=_flag(bool(set(claimed) & set(truth.error_steps))) if truth.error_steps else None,
        post_mortem=_post_mortem(claimed, truth.point_of_no_return),
        cause=cause,
        joint=exact * cause if exact is not None and cause is not None else None,
        confabulated=_flag(claims.confabulated),
    )


def _post_mortem(claimed: Sequence[int], point_of_no_return: int | None) -> float | None:
    if point_of_no_return is None:
        return None
    return _flag(any(step > point_of_no_return for step in claimed))


def expected_random(truth: GroundTruth) -> ReflectionScore:
    """The chance row: each step measure's expectation when one step of the trial is drawn uniformly (1/T for the
    exact step). Cause and confabulation are undefined for a step drawn at random."""
    if not truth.scored or truth.steps == 0:
        return ReflectionScore()
    steps = range(1, truth.steps + 1)
    decisive, total = truth.decisive_step, truth.steps

    def share(hit: int) -> float:
        return hit / total

    pnr = truth.point_of_no_return
    return ReflectionScore(
        localises=1.0,
        exact=share(1) if decisive is not None else None,
        within_1=share(sum(abs(s - decisive) <= 1 for s in steps)) if decisive is not None else None,
        within_2=share(sum(abs(s - decisive) <= 2 for s in steps)) if decisive is not None else None,
        any_error=share(len(set(truth.error_steps) & set(steps))) if truth.error_steps else None,
        post_mortem=share(sum(s > pnr for s in steps)) if pnr is not None else None,
    )
