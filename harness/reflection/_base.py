"""The reflection source interface and its registry."""

from __future__ import annotations

import importlib
import pkgutil
import threading
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.errors import HarnessError
from harness.llm.metering import MeteredLLM
from harness.records.details import ReflectionDetails
from harness.records.gate import Turn
from harness.records.registry import Registry
from harness.reflection.source_prompts import source_prompts


class GateAnswer(BaseModel):
    """A gated source's proposals, before the gate has seen them."""

    model_config = ConfigDict(frozen=True)

    raw: str = Field(description="The model's answer exactly as returned.")
    turns: list[Turn] = Field(description="The numbered turns the reflector could cite.")
    candidates: list[Any] = Field(description="The proposed items as read from the answer (JSON values).")


class Reflection(BaseModel):
    """What a source produced for one failed trial."""

    model_config = ConfigDict(frozen=True)

    text: str | None = Field(description="What reaches memory; None when nothing does.")
    details: ReflectionDetails | None = Field(None, description="Source-specific evidence kept in the record.")
    gate_answer: GateAnswer | None = Field(None, description="Gated sources: the proposals the gate must check.")


class NoOptions(BaseModel):
    """A source without settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ReflectionSource(ABC):
    """Turns a failed trial into a reflection for memory, or into nothing."""

    name: ClassVar[str]
    uses_memory: ClassVar[bool] = True
    swaps_models: ClassVar[bool] = False
    """True when the condition only makes sense with a model other than the run's (model_swap)."""
    needs_gate: ClassVar[bool] = False
    """True when the source's proposals reach memory only through the memory gate (gated)."""
    Options: ClassVar[type[BaseModel]] = NoOptions

    def __init__(self, memory_window: int, options: dict[str, Any] | None = None) -> None:
        self.memory_window = memory_window
        self.options = self.Options.model_validate(options or {})

    @abstractmethod
    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        """The reflection for a failed trial (its text may be None), asking `domain` for what is domain-specific."""

    def prompts(self, trial: ReflectionInput) -> Any:
        """This source's own prompts for the trial's domain, registered by (source, domain) (`source_prompts.py`)."""
        return source_prompts(self.name, trial.domain)


class SourceOutputError(HarnessError):
    """A source's reflect() returned something other than a Reflection, or a plugin's source raised."""


def checked_reflection(
    reflect: Callable[[], object], source: ReflectionSource, condition: str, task_id: str, trial: int
) -> Reflection:
    """What `reflect()` (`source.reflect` on one trial) returns, if it is a Reflection; SourceOutputError naming the
    source otherwise, and when a source from outside the harness raises anything but a harness error.

    A plugin's source is the harness's only code not under its tests, and what it returns goes into a record; its
    exception's message goes to the terminal as one sentence, its control characters shown (Hydra's traceback would
    print them as they are).
    """
    where = f"reflection source {source.name!r} (condition {condition})"
    # A KeyboardInterrupt outside the main thread is never the user's (Python delivers signals to the main thread),
    # and sys.exit() on a trial's thread would end the run without a word.
    caught = (Exception, SystemExit) if threading.current_thread() is threading.main_thread() else BaseException
    try:
        found = reflect()
    except HarnessError:
        raise
    except caught as error:
        if type(source).__module__.split(".")[0] == "harness":
            raise  # the harness's own bug: its traceback
        raise SourceOutputError(
            f"{where} raised {type(error).__name__} on task {task_id} trial {trial}: {str(error).rstrip('.')}; it is "
            "the source's failure, not the harness's."
        ) from error
    if isinstance(found, Reflection):
        return found
    raise SourceOutputError(
        f"{where} returned a {type(found).__name__} for task "
        f"{task_id} trial {trial}, not a harness.reflection.Reflection; its reflect() must return one."
    )


def _import_shipped_sources() -> None:
    # Every public module of harness/reflection: a source module registers itself (@register_source) as it loads,
    # so a new one needs no line anywhere else.
    package = importlib.import_module(__package__ or "harness.reflection")
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{module.name}")


def _is_source(name: str, source: Any) -> str | None:
    if not (isinstance(source, type) and issubclass(source, ReflectionSource)):
        return "is not a ReflectionSource subclass"
    if getattr(source, "name", None) != name:
        return f"is not registered as {name!r}: decorate it with @register_source({name!r})"
    return None


SOURCES: Registry[type[ReflectionSource]] = Registry(
    "reflection source",
    group="reflexion_harness.sources",
    discover=_import_shipped_sources,
    check=_is_source,
    unknown=lambda name, accepted: f"unknown reflection source {name!r}; accepted: {', '.join(accepted)}",
)
_S = TypeVar("_S", bound=type[ReflectionSource])


def register_source(name: str) -> Callable[[_S], _S]:
    """Class decorator: make a source selectable as a condition's `source: <name>`."""

    def decorate(cls: _S) -> _S:
        cls.name = name
        SOURCES.register(name, cls)
        return cls

    return decorate

