"""The no-memory condition: failures are not reflected on, the actor always starts blank."""

from __future__ import annotations

from harness.llm.metering import MeteredLLM
from harness.reflection._base import Reflection, ReflectionInput, ReflectionSource, register_source


@register_source("no_memory")
class NoMemory(ReflectionSource):
    """Writes nothing, so the actor's memory stays empty."""

    uses_memory = False

    def reflect(self, trial: ReflectionInput, llm: MeteredLLM) -> Reflection:
        return Reflection(text=None)
