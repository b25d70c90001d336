"""Where a failed trial was lost, computed from the environment, and what its reflection claims about it.

A domain's ground-truth rule writes `GroundTruth` (the engine's replay and planner, the sandbox's per-assert
verdicts, the supporting facts); no condition ever sees it. A domain's claim rule reads a reflection into
`ReflectionClaims`. The diagnosis measures (`harness.metrics.diagnosis`) compare the two. Models only: no rule
lives here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

StepVerdictLabel = Literal["error", "neutral", "progress"]

ALFWORLD_CAUSES: tuple[str, ...] = (
    "invalid_action",
    "loop",
    "wrong_object",
    "wrong_receptacle",
    "wrong_transformation",
    "ignored_seen_object",
    "search_budget",
    "other",
)
HUMANEVAL_CAUSES: tuple[str, ...] = ("wrong_internal_test", "exception", "timeout", "wrong_result", "other")
HOTPOTQA_CAUSES: tuple[str, ...] = (
    "em_format",
    "stopped_at_bridge",
    "hop1_miss",
    "hop2_misread",
    "comparison_misread",
    "unsupported_answer",
    "other",
)
CAUSES: dict[str, tuple[str, ...]] = {
    "alfworld": ALFWORLD_CAUSES,
    "humaneval": HUMANEVAL_CAUSES,
    "hotpotqa": HOTPOTQA_CAUSES,
}
"""Each shipped domain's cause categories; a domain from outside names its own in its ground truth's `rule`."""

ClaimKind = Literal[
    "step", "cause", "action", "observation", "object", "receptacle", "test_output", "fact", "input", "line"
]
"""What a claim is about; `input` (an input or input class a code reflection names as failing) and `line` (code it
quotes as the implementation's) are HumanEval's."""


class StepVerdict(BaseModel):
    """One step of a failed trial as its ground truth reads it (ALFWorld: every recorded step, thoughts included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int = Field(ge=1, description="1-based index into the trial's steps.")
    verdict: StepVerdictLabel = Field(
        description="error: nothing happens, a revisit or repeat with no new information, the wrong object, "
        "receptacle or transformation, or (the needed object seen) a step that does not shorten the distance; "
        "neutral: exploring what was not yet seen, a thought; progress: the planner's distance shrinks."
    )
    category: str | None = Field(None, description="The error's cause category; None for neutral and progress.")
    distance: int | None = Field(
        None, description="The planner's fewest steps to win after this step; None where not computed (a thought)."
    )


class GroundTruth(BaseModel):
    """Where and why one failed trial was lost, computed, never guessed; `scored` false says why it is not."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    domain: str
    task_id: str
    rule: str = Field(description="Which rule and version computed it, e.g. 'alfworld-truth/1'.")
    scored: bool = Field(description="False where the ground truth cannot be computed (a replay that diverges).")
    unscored: str | None = Field(
        None, description="Why it is not scored, in one sentence (e.g. 'replay diverged at step 7'); None if scored."
    )
    steps: int = Field(0, ge=0, description="How many steps the trial has (the indexable units of `decisive_step`).")
    decisive_step: int | None = Field(
        None, ge=1, description="1-based step where the trial was lost; None: no decisive agent step (or unscored)."
    )
    category: str | None = Field(None, description="The cause category of the decisive step (or of the trial).")
    error_steps: list[int] = Field(default_factory=list, description="Every step labelled an error, in order.")
    point_of_no_return: int | None = Field(
        None, ge=1, description="First step after which the planner's distance exceeds the remaining budget."
    )
    verdicts: list[StepVerdict] = Field(default_factory=list, description="Per step (ALFWorld); empty elsewhere.")
    decisive_text: str | None = Field(
        None,
        description="What the decisive point says: the step's action, the failing hidden assert, or the decisive "
        "supporting sentence.",
    )
    facts: dict[str, str | list[str]] = Field(
        default_factory=dict,
        description="The domain's further evidence, by name (HumanEval: failing hidden asserts and their input "
        "class; HotpotQA: the bridge entity; ALFWorld: the goal's objects and where they were seen).",
    )


class Claim(BaseModel):
    """One thing a reflection states, as its domain's claim rule read it: text[start:end]."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ClaimKind
    text: str = Field(description="The words as the reflection writes them.")
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    means: str = Field(description="What the words were read as, e.g. 'go to cabinet 1' or 'hop1_miss'.")
    steps: list[int] = Field(
        default_factory=list,
        description="The 1-based steps the words point at; more than one: ambiguous (a repeated action text).",
    )
    confabulated: bool = Field(
        False, description="States an action, observation, object, output or fact that its trial does not hold."
    )


class ReflectionClaims(BaseModel):
    """What one reflection claims about its trial: the steps it points at, the cause it names, what never happened."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str = Field(description="Which rule and version read it, e.g. 'alfworld-claims/1'.")
    claimed_steps: list[int] = Field(
        default_factory=list, description="Every step it points at unambiguously, in order; empty: names no step."
    )
    ambiguous: bool = Field(False, description="It points at an action text that occurs at several steps.")
    cause: str | None = Field(None, description="The cause category it names; None: names none.")
    claims: list[Claim] = Field(default_factory=list, description="In text order.")

    @property
    def confabulated(self) -> bool:
        """Whether it states at least one thing its trial does not hold."""
        return any(claim.confabulated for claim in self.claims)
