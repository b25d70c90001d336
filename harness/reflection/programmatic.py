"""Programmatic extraction: deterministic failure signals, injected into Reflexion's reflection query.

The reflector still writes the plan, but it reads what the environment itself said went wrong instead
of having to find it: on ALFWorld the trajectory parser's signals (actions answered "Nothing happens.",
loops, the repeated-action stop, the spent budget), on HumanEval the failed asserts with their actual
values and the exceptions with the implementation line that raised them.
"""

from __future__ import annotations

from harness.domains.humaneval.models import CodeSignals
from harness.llm.metering import MeteredLLM
from harness.prompts import read_prompt
from harness.reflection._base import Reflection, ReflectionInput, ReflectionSource, code_and_feedback, register_source
from harness.reflection.self_diagnosis import code_reflection_request, reflection_query, reflection_request
from harness.records.details import ExtractedCodeSignals, ExtractedSignals
from harness.domains.alfworld.signals import FailureSignals, parse_failures


def signals_block(signals: FailureSignals | CodeSignals, domain: str = "alfworld") -> str:
    """The text appended to the scenario or feedback: one line per signal, or a sentence saying there is none."""
    if not signals.has_failures:
        return read_prompt(f"{domain}/programmatic_no_signals.txt").rstrip("\n")
    return read_prompt(f"{domain}/programmatic_signals.txt").format(signals=signals.render()).rstrip("\n")


@register_source("programmatic")
class Programmatic(ReflectionSource):
    """Self-diagnosis with the parser's failure steps in the prompt; the signals are kept in the record."""

    def reflect(self, trial: ReflectionInput, llm: MeteredLLM) -> Reflection:
        if trial.domain == "humaneval":
            return self._reflect_on_code(trial, llm)
        signals = parse_failures(trial.trajectory, trial.end_reason, trial.max_steps)
        block = signals_block(signals)
        prompt = reflection_query(trial.scenario + block, trial.memory)
        text = llm.generate(reflection_request(prompt, trial.seed)).text
        return Reflection(text=text, details=ExtractedSignals(signals=signals, rendered=block.strip()))

    def _reflect_on_code(self, trial: ReflectionInput, llm: MeteredLLM) -> Reflection:
        if trial.evidence is None:
            raise ValueError(f"{trial.task_id}: a HumanEval trial reached the programmatic source without signals.")
        implementation, feedback = code_and_feedback(trial)
        block = signals_block(trial.evidence, "humaneval")
        text = llm.generate(code_reflection_request(implementation, feedback + block, trial.seed)).text
        return Reflection(text=text, details=ExtractedCodeSignals(signals=trial.evidence, rendered=block.strip()))
