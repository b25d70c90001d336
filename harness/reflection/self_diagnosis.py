"""Open self-diagnosis: the original Reflexion reflection query (the domain's), few-shot examples included."""

from __future__ import annotations

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.llm.metering import MeteredLLM
from harness.reflection._base import Reflection, ReflectionSource, register_source


@register_source("self_diagnosis")
class SelfDiagnosis(ReflectionSource):
    """The model reads its failed episode (or code and test feedback) and says in its own words what to change."""

    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        return Reflection(text=domain.reflection_text(llm.generate(domain.self_diagnosis_request(trial)).text))
