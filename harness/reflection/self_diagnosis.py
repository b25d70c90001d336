"""Open self-diagnosis: the original Reflexion reflection query, few-shot examples included."""

from __future__ import annotations

from harness.domains.humaneval.actor import REFLEXION_CHAT_TEMPERATURE, chat_request, reflection_messages
from harness.llm import LLMRequest
from harness.llm.metering import MeteredLLM
from harness.prompts import read_prompt
from harness.reflection._base import Reflection, ReflectionInput, ReflectionSource, code_and_feedback, register_source

# Reflexion called its ALFWorld reflector with temperature 0 and 256 tokens, no stop sequence.
REFLECTION_MAX_TOKENS = 256
# Its programming reflector asked for 1024 tokens; a reflection ends its turn long before.
CODE_REFLECTION_MAX_TOKENS = 1024


def past_plans(memory: list[str]) -> str:
    """Reflexion's block listing earlier reflections, or "" without memory."""
    if not memory:
        return ""
    return "\n\nPlans from past attempts:\n" + "".join(
        f"Trial #{index}: {reflection}\n" for index, reflection in enumerate(memory)
    )


def reflection_query(scenario: str, memory: list[str]) -> str:
    """Reflexion's `_generate_reflection_query`, verbatim in its layout."""
    query = read_prompt("alfworld/alfworld_reflection_query.txt").format(
        few_shot_examples=read_prompt("alfworld/reflexion_few_shot_examples.txt"),
        scenario=scenario,
    )
    return query + past_plans(memory) + "\n\nNew plan:"


def reflection_request(prompt: str, seed: int) -> LLMRequest:
    """A reflector call as Reflexion made it."""
    return LLMRequest(
        kind="completion", prompt=prompt, max_tokens=REFLECTION_MAX_TOKENS, temperature=0.0, seed=seed
    )


def code_reflection_request(implementation: str, feedback: str, seed: int) -> LLMRequest:
    """Reflexion's programming self-reflection call (chat, at its generate_chat default temperature)."""
    return chat_request(
        reflection_messages(implementation, feedback), CODE_REFLECTION_MAX_TOKENS, seed, REFLEXION_CHAT_TEMPERATURE
    )


@register_source("self_diagnosis")
class SelfDiagnosis(ReflectionSource):
    """The model reads its failed episode (or code and test feedback) and says in its own words what to change."""

    def reflect(self, trial: ReflectionInput, llm: MeteredLLM) -> Reflection:
        if trial.domain == "humaneval":
            return Reflection(text=llm.generate(code_reflection_request(*code_and_feedback(trial), trial.seed)).text)
        prompt = reflection_query(trial.scenario, trial.memory)
        return Reflection(text=llm.generate(reflection_request(prompt, trial.seed)).text)
