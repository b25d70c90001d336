"""The no-memory condition: failures are not reflected on, the actor always starts blank."""

from __future__ import annotations

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.llm.metering import MeteredLLM
from harness.reflection._base import Reflection, ReflectionSource, register_source


@register_source("no_memory")
class NoMemory(ReflectionSource):
    """Writes nothing, so the actor's memory stays empty."""

    uses_memory = False

    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        return Reflection(text=None)
