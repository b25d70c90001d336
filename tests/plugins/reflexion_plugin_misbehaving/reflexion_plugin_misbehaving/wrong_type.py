"""A source that loads and registers, but whose reflect() returns the lesson as a plain string, not a Reflection."""

from __future__ import annotations

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.llm.metering import MeteredLLM
from harness.reflection import ReflectionSource, register_source


@register_source("wrong_type")
class WrongType(ReflectionSource):
    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM):  # type: ignore[no-untyped-def]
        return "a lesson as a plain string"
