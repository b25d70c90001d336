"""A domain as one spec: everything the harness asks of a domain by its name, in one object.

Each shipped domain defines `SPEC` in `harness/domains/<name>/spec.py`; a domain from an installed package points
a `reflexion_harness.domains` entry point at its own. A spec imports only its env config and its record model:
the rules are `Lazy` references, loaded when a run or a report first asks for them, so naming a domain is cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

from pydantic import BaseModel

from harness.records.registry import Lazy

if TYPE_CHECKING:
    from harness.domains.base import Domain
    from harness.metrics.core import MentionCounts
    from harness.metrics.object_mention import MentionSpan
    from harness.records import TrialRecord
    from harness.records.diagnosis import GroundTruth, ReflectionClaims
    from harness.records.identity import ReflectionIdentity

DomainBuilder = Callable[[Any, "frozenset[str] | None"], "Domain"]
"""The validated env config, and the held-out tasks it keeps (`only`; None: every task the config selects) -> the
domain."""
TargetRule = Callable[[str], str]
"""task id -> what object mention looks for."""
MentionRule = Callable[[Sequence["TrialRecord"]], "MentionCounts"]
"""one task's records under one condition -> its object mention."""
SpanRule = Callable[["TrialRecord"], list["MentionSpan"]]
"""one record -> where its reflection mentions the object, under each variant of the mention rule."""
IdentityRule = Callable[["TrialRecord"], "ReflectionIdentity | None"]
"""one record -> its reflection's task identity (None without a reflection)."""
LineIdentityRule = Callable[[dict[str, Any]], "ReflectionIdentity"]
"""one line of `reflexion-identity` ({"domain", "task", "text", ...}) -> its identity."""

TruthRule = Callable[["TrialRecord"], "GroundTruth"]
"""one failed trial's record -> where and why it was lost, computed from the environment, never shown to a condition."""
ClaimRule = Callable[["TrialRecord", "GroundTruth"], "ReflectionClaims"]
"""one record with a reflection, and its trial's ground truth -> what the reflection claims."""
LineDiagnosisRule = Callable[[dict[str, Any]], tuple["GroundTruth", "ReflectionClaims"]]
"""one line of `reflexion-diagnosis` (its domain's format) -> the trial's ground truth and the reflection's claims."""

DEFAULT_MEMORY_WINDOW = 3
"""The window of a domain that names none: ALFWorld's, the first protocol Reflexion published."""


@dataclass(frozen=True, kw_only=True)
class DomainSpec:
    """One domain: its config, its protocol's memory window, how to build it, and the rules that read its records.

    Said here only: the Domain it builds plays trials and gives the shipped sources its reflection hooks; what object
    mention looks for and a reflection's task identity are these rules', for the run's metrics and the report alike.
    """

    name: str
    """What `env.name` says and every record's manifest names."""
    builder: Lazy[DomainBuilder]
    """The validated env config and the held-out tasks to keep (None: all) -> the Domain that plays the run."""
    env_config: type[BaseModel] | None = None
    """The model of `configs/env/<name>.yaml`, its `name` a Literal of `name`; None: not selectable by run.py."""
    memory_window: int = DEFAULT_MEMORY_WINDOW
    """Reflections the actor reads under Reflexion's protocol, unless a condition sets its own."""
    target: Lazy[TargetRule] | None = None
    mentions: Lazy[MentionRule] | None = None
    """Object mention measured from records alone, with `target`; None: the report cannot measure it."""
    spans: Lazy[SpanRule] | None = None
    """Where a reflection mentions the object, for the report page to highlight; None: counted, not highlighted."""
    mention_note: Lazy[str] | None = None
    """One sentence on what the object is and how each variant finds it, under the reports' tables."""
    identity: Lazy[IdentityRule] | None = None
    identity_note: Lazy[str] | None = None
    """The reflection's task identity (on_task, off_task, vacuous) and a sentence on the labels; None: unlabelled."""
    line_identity: Lazy[LineIdentityRule] | None = None
    """The identity of one reflection given as a line of `reflexion-identity`."""
    truth: Lazy[TruthRule] | None = None
    claims: Lazy[ClaimRule] | None = None
    line_diagnosis: Lazy[LineDiagnosisRule] | None = None
    """Diagnosis: a failed trial's ground truth, what its reflection claims, and both for one line of
    `reflexion-diagnosis`; None: the domain's reflections are not scored for their diagnosis."""
    details: type[BaseModel] | None = None
    """The model of what a trial keeps in `TrialRecord.attempt_details`, its `kind` the domain's name."""

    def __post_init__(self) -> None:
        names = _literal_name(self.env_config) if self.env_config is not None else (self.name,)
        if names != (self.name,):
            raise ValueError(f"domain {self.name!r}: its env config's `name` must be Literal[{self.name!r}]")
        kind = self.details.model_fields.get("kind") if self.details is not None else None
        if self.details is not None and (kind is None or kind.default != self.name):
            raise ValueError(f"domain {self.name!r}: its details model's `kind` must default to {self.name!r}")
        if self.memory_window < 0:
            raise ValueError(f"domain {self.name!r}: memory_window is {self.memory_window}, not 0 or more")


def _literal_name(model: type[BaseModel]) -> tuple[Any, ...]:
    field = model.model_fields.get("name")
    return get_args(field.annotation) if field is not None else ()
