"""Source-specific evidence a reflection leaves in its trial record (template parts, parser signals, gate outcome),
chosen by its `kind`: the shipped models are marked `@reflection_details` here, and a source from an installed
package brings its own through a `reflexion_harness.reflection_details` entry point (named by its kind), so no list
names them."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PlainValidator

from harness.records.alfworld import FailureSignals
from harness.records.by_kind import is_kind_model, kind_of, validator
from harness.records.gate import Dropped, Proposal
from harness.records.humaneval import CodeSignals
from harness.records.registry import Registry

_M = TypeVar("_M", bound=type[BaseModel])

REFLECTION_DETAILS: Registry[type[BaseModel]] = Registry(
    "reflection details", group="reflexion_harness.reflection_details", check=is_kind_model
)


def reflection_details(model: _M) -> _M:
    """Class decorator: make `model` the details of the source (or source variant) its `kind` names."""
    REFLECTION_DETAILS.register(str(kind_of(model)), model)
    return model


@reflection_details
class TemplateParts(BaseModel):
    """A grounded_template answer, parsed into its three parts."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["grounded_template"] = "grounded_template"
    raw: str = Field(description="The model's answer exactly as returned.")
    failed_step: str | None = Field(description="Text of the FAILED STEP part, or None if missing.")
    root_cause: str | None = Field(description="Text of the ROOT CAUSE part, or None if missing.")
    new_plan: str | None = Field(description="Text of the NEW PLAN part, or None if missing.")
    matched_step: int | None = Field(description="1-based step whose action the FAILED STEP part quotes, or None.")
    malformed: bool = Field(description="True when a part is missing or empty, or FAILED STEP names no step taken.")
    problems: list[str] = Field(description="Why the answer is malformed, one reason per item.")
    policy: Literal["skip", "keep_raw"] = Field(description="What was done with a malformed answer.")


@reflection_details
class ExtractedSignals(BaseModel):
    """The failure signals the trajectory parser found and the reflector was shown."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["programmatic"] = "programmatic"
    signals: FailureSignals = Field(description="Every signal, structured.")
    rendered: str = Field(description="The lines injected into the reflection prompt.")


@reflection_details
class ExtractedCodeSignals(BaseModel):
    """HumanEval: the failed asserts and exceptions of the internal-test run, as the reflector was shown them."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["programmatic_code"] = "programmatic_code"
    signals: CodeSignals = Field(description="Every signal, structured.")
    rendered: str = Field(description="The lines injected into the reflection prompt.")


@reflection_details
class ListedSignals(BaseModel):
    """Any domain's failure signals as plain lines, for a domain without a signal model of its own."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["listed_signals"] = "listed_signals"
    lines: list[str] = Field(description="One signal a line, in the order found.")
    rendered: str = Field(description="The lines injected into the reflection prompt.")


@reflection_details
class GateOutcome(BaseModel):
    """What the memory gate did with a gated reflection's proposals."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["gated"] = "gated"
    raw: str = Field(description="The model's answer exactly as returned.")
    policy: Literal["auto", "owner"] = Field(description="Who promotes items that pass: the policy, or the owner.")
    proposed: list[Proposal] = Field(description="Items whose quote was found in an outside turn: the pile.")
    dropped: list[Dropped] = Field(description="Items refused by the quote check, each with its reason.")
    approved: list[str] = Field(description="Ids of proposed items live in memory when the trial was recorded.")


ReflectionDetails = Annotated[
    Any, PlainValidator(validator(REFLECTION_DETAILS, "reflection source", "reflection details"))
]
"""What a reflection source kept beside its reflection: validated as the model its `kind` names, written out as that
model."""
