"""Programmatic extraction: the trajectory parser's failure signals, injected into Reflexion's query.

The reflector still writes the plan, but it reads what the environment itself said went wrong
(actions answered "Nothing happens.", loops, the repeated-action stop, the spent budget)
instead of having to find it in the log.
"""

from __future__ import annotations

from harness.metering import MeteredLLM
from harness.prompts import read_prompt
from harness.reflection._base import Reflection, ReflectionInput, ReflectionSource, register_source
from harness.reflection_details import ExtractedSignals
from harness.reflection.self_diagnosis import reflection_query, reflection_request
from harness.trajectory_parser import FailureSignals, parse_failures


def signals_block(signals: FailureSignals) -> str:
    """The text appended to the scenario: one line per signal, or a sentence saying there is none."""
    if not signals.has_failures:
        return read_prompt("alfworld/programmatic_no_signals.txt").rstrip("\n")
    return read_prompt("alfworld/programmatic_signals.txt").format(signals=signals.render()).rstrip("\n")


@register_source("programmatic")
class Programmatic(ReflectionSource):
    """Self-diagnosis with the parser's failure steps in the prompt; the signals are kept in the record."""

    def reflect(self, trial: ReflectionInput, llm: MeteredLLM) -> Reflection:
        signals = parse_failures(trial.trajectory, trial.end_reason, trial.max_steps)
        block = signals_block(signals)
        prompt = reflection_query(trial.scenario + block, trial.memory)
        text = llm.generate(reflection_request(prompt, trial.seed)).text
        return Reflection(text=text, details=ExtractedSignals(signals=signals, rendered=block.strip()))
