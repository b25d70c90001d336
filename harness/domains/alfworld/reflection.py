"""What ALFWorld gives the reflection sources: Reflexion's reflection query, the parser's signals, the template's
quotable actions and the trial as numbered turns."""

from __future__ import annotations

from collections.abc import Sequence

from harness.domains.alfworld.signals import is_thought, parse_failures
from harness.domains.base import ReflectionHooks, ReflectionInput, TemplateCandidates
from harness.llm import LLMRequest
from harness.llm.prompts import GATED_MAX_TOKENS, read_prompt, signals_block
from harness.records.details import ExtractedSignals, ReflectionDetails
from harness.records.gate import Turn
from harness.records.step import Step

# Reflexion called its ALFWorld reflector with temperature 0 and 256 tokens, no stop sequence.
REFLECTION_MAX_TOKENS = 256
# The template prompt ends with the first label, so the model's answer starts inside that part.
TEMPLATE_ANSWER_PREFIX = "FAILED STEP:"
# The gated prompt ends inside the JSON list, so the answer continues it.
GATED_ANSWER_PREFIX = "["
# A completion model does not stop after the list: seen with Qwen2.5-Coder-1.5B, "] ```json" repeated to the
# token limit. The list itself holds neither a code fence nor a blank line.
GATED_STOP = ["```", "\n\n"]


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


def template_query(scenario: str, memory: list[str]) -> str:
    """The grounded-template reflection prompt."""
    return (
        read_prompt("alfworld/grounded_template_query.txt")
        .format(
            examples=read_prompt("alfworld/grounded_template_examples.txt"),
            scenario=scenario,
            past_plans=past_plans(memory).rstrip("\n"),
        )
        .rstrip("\n")
    )


def action_candidates(trajectory: Sequence[Step]) -> list[tuple[int, str]]:
    """(step number, action) of every action sent to the environment; thoughts cannot fail."""
    return [(n, s.action) for n, s in enumerate(trajectory, start=1) if s.action.strip() and not is_thought(s.action)]


def gated_query(turns_text: str) -> str:
    """The gated completion prompt, ending with the opening bracket of the answer."""
    return read_prompt("alfworld/gated_query.txt").format(turns=turns_text).rstrip("\n")


def opening_observation(scenario: str) -> str:
    """The episode log up to its first action: the room and the task."""
    lines = scenario.split("\n")
    first_action = next((index for index, line in enumerate(lines) if line.startswith("> ")), len(lines))
    return "\n".join(lines[:first_action]).strip()


def alfworld_turns(scenario: str, actions: Sequence[tuple[str, str]], memory: Sequence[str]) -> list[Turn]:
    """Earlier lessons, the opening observation, then each action and the environment's answer."""
    texts: list[tuple[str, str]] = [("reflection", lesson) for lesson in memory]
    texts.append(("environment", opening_observation(scenario)))
    for action, observation in actions:
        texts.append(("agent", f"> {action}"))
        texts.append(("environment", observation))
    return [Turn(id=number, role=role, text=text) for number, (role, text) in enumerate(texts, start=1)]


class AlfworldReflection(ReflectionHooks):
    """The episode log is the scenario; its actions are what FAILED STEP may quote; observations are evidence."""

    def self_diagnosis_request(self, trial: ReflectionInput, appendix: str = "") -> LLMRequest:
        return reflection_request(reflection_query(trial.scenario + appendix, trial.memory), trial.seed)

    def failure_signals(self, trial: ReflectionInput) -> tuple[ReflectionDetails, str]:
        signals = parse_failures(trial.trajectory, trial.end_reason, trial.max_steps)
        block = signals_block("alfworld", signals.render() if signals.has_failures else "")
        return ExtractedSignals(signals=signals, rendered=block.strip()), block

    def template_request(self, trial: ReflectionInput) -> tuple[LLMRequest, str]:
        return reflection_request(template_query(trial.scenario, trial.memory), trial.seed), TEMPLATE_ANSWER_PREFIX

    def template_candidates(self, trial: ReflectionInput) -> TemplateCandidates:
        return TemplateCandidates(
            items=action_candidates(trial.trajectory),
            unmatched="FAILED STEP quotes no action that was taken in the episode",
        )

    def gated_turns(self, trial: ReflectionInput) -> list[Turn]:
        steps = [(step.action, step.observation) for step in trial.trajectory]
        return alfworld_turns(trial.scenario, steps, trial.memory)

    def gated_request(self, trial: ReflectionInput, turns_text: str) -> tuple[LLMRequest, str]:
        request = LLMRequest(
            kind="completion",
            prompt=gated_query(turns_text),
            max_tokens=GATED_MAX_TOKENS,
            temperature=0.0,
            stop=GATED_STOP,
            seed=trial.seed,
        )
        return request, GATED_ANSWER_PREFIX
