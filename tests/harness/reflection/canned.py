"""A stand-in reflector for source tests (named so: it is no LLM): answers every call with one fixed text."""

from __future__ import annotations

from pathlib import Path

from harness.llm import CachedLLM, CacheStore, CallContext, LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM
from harness.records.step import Step


class CannedAnswer:
    """Returns `answer` to every request and keeps the prompts it was sent."""

    identity = "canned-answer"

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[str] = []
        self.requests: list[LLMRequest] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        self.prompts.append(request.prompt or "")
        return LLMResponse(text=self.answer, usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


def metered(backend: CannedAnswer, cache_dir: Path) -> MeteredLLM:
    """The backend behind the real cache (mode off) and meter, as a source sees its reflector."""
    llm = CachedLLM(backend, CacheStore(cache_dir / "cache.jsonl"), "off")
    return MeteredLLM(llm, CallContext(task_id="t", trial=0, condition="c", role="reflector"))


# A failed put episode as the actor records it: a wrong take, a loop between two places, the budget spent.
TRAJECTORY = [
    Step(action="think: The soapbottle is likely on the countertop.", observation="OK."),
    Step(action="go to countertop 1", observation="On the countertop 1, you see a soapbottle 1."),
    Step(action="take soapbottle 2 from countertop 1", observation="Nothing happens."),
    Step(action="go to toilet 1", observation="On the toilet 1, you see nothing."),
    Step(action="go to countertop 1", observation="On the countertop 1, you see a soapbottle 1."),
    Step(action="go to toilet 1", observation="On the toilet 1, you see nothing."),
    Step(action="go to countertop 1", observation="On the countertop 1, you see a soapbottle 1."),
]
SCENARIO = "Your task is to: put some soapbottle on toilet.\n> go to countertop 1\n...\n\nSTATUS: FAIL"
