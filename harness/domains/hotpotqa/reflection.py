"""What HotpotQA gives the reflection sources: Reflexion's CoT reflection prompt on the previous scratchpad, the
parser's signals, the thought and action the template may quote, and the trial as numbered turns (the question
and the context paragraphs are the outside turns)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.domains.base import ReflectionHooks, ReflectionInput, TemplateCandidates
from harness.domains.hotpotqa.agent import MAX_TOKENS, format_step, request
from harness.records.hotpotqa import QuestionAttempt
from harness.domains.hotpotqa.questions import Question
from harness.domains.hotpotqa.signals import failure_signals, render
from harness.llm import LLMRequest
from harness.llm.prompts import GATED_MAX_TOKENS, read_prompt, signals_block
from harness.records.details import ListedSignals, ReflectionDetails
from harness.records.gate import Turn

# The template and the gated answers span several lines, so Reflexion's newline stop cannot end them; a blank line
# does (after the three parts; a JSON list holds none), and so does a code fence after the list.
TEMPLATE_ANSWER_PREFIX = "FAILED STEP:"
TEMPLATE_STOP = ["\n\n"]
GATED_ANSWER_PREFIX = "["
GATED_STOP = ["```", "\n\n"]


def reflection_prompt(question: Question, scratchpad: str) -> str:
    """`cot_reflect_prompt` with the COT_REFLECT examples, the context, the question and the previous scratchpad."""
    return read_prompt("hotpotqa/cot_reflect_instruction.txt").format(
        examples=read_prompt("hotpotqa/cot_reflect_examples.txt"),
        context=question.supporting_context(),
        question=question.question,
        scratchpad=scratchpad,
    )


def template_prompt(question: Question, scratchpad: str) -> str:
    """The grounded-template prompt on the previous scratchpad, ending with the first label."""
    return (
        read_prompt("hotpotqa/grounded_template_query.txt")
        .format(
            examples=read_prompt("hotpotqa/grounded_template_examples.txt"),
            context=question.supporting_context(),
            question=question.question,
            scratchpad=scratchpad,
        )
        .rstrip("\n")
    )


def quotable(attempt: QuestionAttempt) -> list[tuple[int, str]]:
    """(1, the thought) and (2, the action), those the trial has."""
    items = [(1, attempt.thought), (2, attempt.action or "")]
    return [(number, text) for number, text in items if text.strip()]


def hotpotqa_turns(question: Question, attempt: QuestionAttempt, memory: Sequence[str]) -> list[Turn]:
    """Earlier lessons, the question (the user's), each supporting paragraph once (the context's), the thought and
    the action (the agent's)."""
    texts: list[tuple[str, str]] = [("reflection", lesson) for lesson in memory]
    texts.append(("user", question.question))
    texts += [("environment", question.paragraph(title)) for title in question.supporting_titles()]
    texts.append(("agent", f"Thought: {attempt.thought}"))
    if attempt.action is not None:
        texts.append(("agent", f"Action: {attempt.action}"))
    return [Turn(id=number, role=role, text=text) for number, (role, text) in enumerate(texts, start=1)]


def _completion(prompt: str, max_tokens: int, stop: list[str], seed: int) -> LLMRequest:
    return LLMRequest(kind="completion", prompt=prompt, max_tokens=max_tokens, temperature=0.0, stop=stop, seed=seed)


def _attempt(trial: ReflectionInput) -> QuestionAttempt:
    if not isinstance(trial.evidence, QuestionAttempt):
        raise ValueError(f"{trial.task_id}: a HotpotQA trial reached a reflection source without its attempt.")
    return trial.evidence


class HotpotQAReflection(ReflectionHooks):
    """The scratchpad is the scenario; its thought and action are what FAILED STEP may quote; the question and the
    context are evidence."""

    def __init__(self, questions: Mapping[str, Question]) -> None:
        self.questions = questions

    def self_diagnosis_request(self, trial: ReflectionInput, appendix: str = "") -> LLMRequest:
        return request(reflection_prompt(self.questions[trial.task_id], trial.scenario + appendix), trial.seed)

    def reflection_text(self, answer: str) -> str:
        # Reflexion's prompt_reflection keeps format_step(answer).
        return format_step(answer)

    def failure_signals(self, trial: ReflectionInput) -> tuple[ReflectionDetails, str]:
        lines = failure_signals(_attempt(trial), self.questions[trial.task_id].supporting_context())
        block = signals_block("hotpotqa", render(lines))
        return ListedSignals(lines=lines, rendered=block.strip()), block

    def template_request(self, trial: ReflectionInput) -> tuple[LLMRequest, str]:
        prompt = template_prompt(self.questions[trial.task_id], trial.scenario)
        return _completion(prompt, MAX_TOKENS, TEMPLATE_STOP, trial.seed), TEMPLATE_ANSWER_PREFIX

    def template_candidates(self, trial: ReflectionInput) -> TemplateCandidates:
        return TemplateCandidates(
            items=quotable(_attempt(trial)), unmatched="FAILED STEP quotes neither the trial's thought nor its action"
        )

    def gated_turns(self, trial: ReflectionInput) -> list[Turn]:
        return hotpotqa_turns(self.questions[trial.task_id], _attempt(trial), trial.memory)

    def gated_request(self, trial: ReflectionInput, turns_text: str) -> tuple[LLMRequest, str]:
        prompt = read_prompt("hotpotqa/gated_query.txt").format(turns=turns_text).rstrip("\n")
        return _completion(prompt, GATED_MAX_TOKENS, GATED_STOP, trial.seed), GATED_ANSWER_PREFIX
