"""Programmatic extraction: deterministic failure signals, injected into Reflexion's reflection query.

The reflector still writes the plan, but it reads what the environment itself said went wrong instead
of having to find it: the domain's parser finds the signals (on ALFWorld actions answered "Nothing
happens.", loops, the repeated-action stop, the spent budget; on HumanEval the failed asserts with their
actual values and the exceptions with the implementation line that raised them).
"""

from __future__ import annotations

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.llm.metering import MeteredLLM
from harness.reflection._base import Reflection, ReflectionSource, register_source


@register_source("programmatic")
class Programmatic(ReflectionSource):
    """Self-diagnosis with the parser's failure signals in the prompt; the signals are kept in the record."""

    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        details, block = domain.failure_signals(trial)
        text = domain.reflection_text(llm.generate(domain.self_diagnosis_request(trial, appendix=block)).text)
        return Reflection(text=text, details=details)
