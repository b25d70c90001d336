"""Reflexion's HotpotQA chain-of-thought agent with context (hotpotqa_runs/agents.py `CoTAgent`, strategy REFLEXION).

One trial is one `step()`: the scratchpad gets `\\nThought:` and the model's thought, `\\nAction:` and the model's
action, then `\\nObservation: ` and, for Finish[answer], `Answer is CORRECT` or `Answer is INCORRECT`. Every answer
goes through `format_step`; every request is the whole prompt, temperature 0, 250 tokens, stop at a newline (a chat
model gets the prompt as one user message: the backend's `api: chat`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from harness.domains.hotpotqa.judge import exact_match
from harness.records.hotpotqa import QuestionAttempt
from harness.domains.hotpotqa.questions import Question
from harness.errors import ContextOverflowError
from harness.llm import LLMRequest
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import read_prompt
from harness.records.step import Step

MAX_TOKENS = 250
STOP = ["\n"]
FINISH = "Finish"
CORRECT = "correct"
INCORRECT = "incorrect"
NO_FINISH = "no_finish"
UNPARSED_ACTION = "unparsed_action"
CONTEXT_OVERFLOW = "context_overflow"
_ACTION_RE = re.compile(r"^(\w+)\[(.+)\]$")


def format_step(text: str) -> str:
    """Reflexion's `format_step`: outer newlines and spaces stripped, inner newlines removed."""
    return text.strip("\n").strip().replace("\n", "")


def parse_action(action: str) -> tuple[str, str] | None:
    """Reflexion's `parse_action`: (type, argument) of `Type[argument]`, else None."""
    match = _ACTION_RE.match(action)
    return (match.group(1), match.group(2)) if match else None


def format_reflections(reflections: Sequence[str]) -> str:
    """Reflexion's `format_reflections`: the header, then `Reflections:` and one `- ` line each; "" without any."""
    if not reflections:
        return ""
    header = read_prompt("hotpotqa/reflection_header.txt")
    return header + "Reflections:\n- " + "\n- ".join(reflection.strip() for reflection in reflections)


def agent_prompt(question: Question, reflections: Sequence[str], scratchpad: str, rules: str = "") -> str:
    """`cot_reflect_agent_prompt` with the COT examples, the reflections block, the context and the scratchpad.

    `rules` (an ExpeL rule message) goes after the examples and before the task, as ExpeL's insert_before_task_prompt
    puts it; with reflections too, before them, so a task's own memory stays nearest its question.
    """
    memory = "\n".join(part for part in (rules.rstrip("\n"), format_reflections(reflections)) if part)
    return read_prompt("hotpotqa/cot_agent_instruction.txt").format(
        examples=read_prompt("hotpotqa/cot_examples.txt"),
        reflections=memory,
        context=question.supporting_context(),
        question=question.question,
        scratchpad=scratchpad,
    )


def request(prompt: str, seed: int) -> LLMRequest:
    """One call as Reflexion's `AnyOpenAILLM` made it."""
    return LLMRequest(kind="completion", prompt=prompt, max_tokens=MAX_TOKENS, temperature=0.0, stop=STOP, seed=seed)


class CotTrial(BaseModel):
    """One trial as played: the record's step, verdict and evidence."""

    model_config = ConfigDict(frozen=True)

    trajectory: list[Step]
    success: bool
    end_reason: str
    attempt: QuestionAttempt


def finish_answer(parsed: tuple[str, str] | None) -> str | None:
    """The answer of a Finish[answer] action; None for any other action or none parsed."""
    return parsed[1] if parsed is not None and parsed[0] == FINISH else None


def end_reason_of(attempt: QuestionAttempt, correct: bool) -> str:
    """How a trial that got as far as an action ended: unparsed, no Finish, or the verdict of its answer."""
    if attempt.action_type is None:
        return UNPARSED_ACTION
    if attempt.answer is None:
        return NO_FINISH
    return CORRECT if correct else INCORRECT


def observation_of(parsed: tuple[str, str] | None, correct: bool) -> str:
    """What follows `Observation: `: the verdict of a Finish, nothing for any other action (Reflexion prints none)."""
    if parsed is None or parsed[0] != FINISH:
        return ""
    return "Answer is CORRECT" if correct else "Answer is INCORRECT"


def play_cot_trial(
    question: Question,
    reflections: Sequence[str],
    earlier_answers: Sequence[str],
    llm: MeteredLLM,
    seed: int,
    rules: str = "",
) -> CotTrial:
    """Reflexion's `CoTAgent.step()` on a fresh scratchpad, the actor reading `reflections` (and `rules`)."""
    scratchpad = "\nThought:"
    thought, action = "", None
    try:
        thought = format_step(llm.generate(request(agent_prompt(question, reflections, scratchpad, rules), seed)).text)
        scratchpad += " " + thought + "\nAction:"
        action = format_step(llm.generate(request(agent_prompt(question, reflections, scratchpad, rules), seed)).text)
    except ContextOverflowError:
        attempt = QuestionAttempt(
            thought=thought,
            action=None,
            action_type=None,
            answer=None,
            earlier_answers=list(earlier_answers),
            scratchpad=scratchpad,
        )
        return CotTrial(trajectory=[], success=False, end_reason=CONTEXT_OVERFLOW, attempt=attempt)
    parsed = parse_action(action)
    answer = finish_answer(parsed)
    correct = answer is not None and exact_match(answer, question.answer)
    observation = observation_of(parsed, correct)
    scratchpad += " " + action + "\nObservation: " + observation
    attempt = QuestionAttempt(
        thought=thought,
        action=action,
        action_type=parsed[0] if parsed else None,
        answer=answer,
        earlier_answers=list(earlier_answers),
        scratchpad=scratchpad,
    )
    return CotTrial(
        trajectory=[Step(action=action, observation=observation)],
        success=correct,
        end_reason=end_reason_of(attempt, correct),
        attempt=attempt,
    )
