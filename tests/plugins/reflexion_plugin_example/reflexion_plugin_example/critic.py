"""A reflection source with prompts of its own for each domain it serves, registered by (source, domain), and
evidence of its own kind with the renderer report.html shows it by: all through entry points, no hook in a domain."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from harness.extensions import (
    DetailBlock, DetailItem, LLMRequest, MeteredLLM, Reflection, ReflectionHooks, ReflectionInput, ReflectionSource,
    register_source,
)


class CriticNotes(BaseModel):
    """What the critic keeps in the record: the question it asked and the answer it got."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["critic"] = "critic"
    asked: str
    answered: str


class CriticPrompt:
    """The critic's question on one domain: its own wording before the trial's scenario."""

    def __init__(self, opening: str) -> None:
        self.opening = opening

    def request(self, trial: ReflectionInput) -> LLMRequest:
        prompt = f"{self.opening} {trial.task_text}\n{trial.scenario}\nCritique:"
        return LLMRequest(kind="completion", prompt=prompt, max_tokens=32, stop=["\n"], seed=trial.seed)


HOTPOTQA = CriticPrompt("Critic on a question (HotpotQA):")
SUMS = CriticPrompt("Critic on a sum:")


@register_source("critic")
class Critic(ReflectionSource):
    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        request = self.prompts(trial).request(trial)
        answer = llm.generate(request).text
        return Reflection(text=f"Critic lesson: {answer}", details=CriticNotes(asked=request.prompt, answered=answer))


def critic_blocks(notes: CriticNotes) -> list[DetailBlock]:
    items = [DetailItem(label="asked", text=notes.asked, tone="code"), DetailItem(label="answered", text=notes.answered)]
    return [DetailBlock(title="the critic's notes", items=items)]
