"""A reflection source that needs no model: the lesson names the last answer given, so memory is visible."""

from __future__ import annotations

from harness.extensions import (
    MeteredLLM, Reflection, ReflectionHooks, ReflectionInput, ReflectionSource, register_source,
)

LESSON = "Echo lesson: the answer {answer!r} was wrong."


@register_source("echo")
class EchoLesson(ReflectionSource):
    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        answer = trial.trajectory[-1].action if trial.trajectory else ""
        return Reflection(text=LESSON.format(answer=answer))
