"""Third-party framing: Reflexion's own reflection request with its instruction reworded so the trajectory is another
agent's log. Everything else of the request is the self-diagnosis one, byte for byte (examples, scenario, memory,
sampling, token limit, seed), so a difference in the diagnosis is the framing's: models miss in their own output
errors they catch in others' (Self-Correction Bench, arXiv 2507.02778). The re-reflection bank's extra condition
(docs/diagnosis.md); a harness option, not part of Reflexion's protocol.

Each domain's wording is prompts/third_party/<domain>.txt, registered by (source, domain) with the instruction it
replaces in the domain's self-diagnosis request.
"""

from __future__ import annotations

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.errors import HarnessError
from harness.llm import ChatMessage, LLMRequest
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import read_prompt
from harness.reflection._base import Reflection, ReflectionSource, register_source
from harness.reflection.source_prompts import register_source_prompts

SOURCE = "third_party"


class FramingError(HarnessError):
    """The domain's self-diagnosis request no longer holds the instruction the framing replaces."""


class ThirdPartyFraming:
    """On one domain: the self-diagnosis instruction (read from the domain's own prompt file) and its third-party
    rewording (prompts/third_party/<domain>.txt); the request is the domain's with the one replaced by the other."""

    def __init__(self, domain: str, first_person: str, rewording: str | None = None) -> None:
        self.domain = domain
        self.first_person = first_person
        self.rewording = rewording
        """The third-party wording itself (a domain from outside); None: prompts/third_party/<domain>.txt."""

    @property
    def third_party(self) -> str:
        # The original's layout after the instruction (HotpotQA's two trailing spaces) is kept.
        trailing = self.first_person[len(self.first_person.rstrip()) :]
        wording = self.rewording if self.rewording is not None else read_prompt(f"third_party/{self.domain}.txt")
        return wording.rstrip() + trailing

    def _replaced(self, text: str, where: str) -> str:
        if text.count(self.first_person) != 1:
            raise FramingError(
                f"the {self.domain} self-diagnosis {where} holds its instruction {text.count(self.first_person)} "
                "times, not once; prompts/third_party cannot reframe it."
            )
        return text.replace(self.first_person, self.third_party)

    def request(self, own: LLMRequest) -> LLMRequest:
        """The self-diagnosis request `own`, framed as another agent's log."""
        if own.kind == "completion":
            return own.model_copy(update={"prompt": self._replaced(own.prompt or "", "prompt")})
        messages = [
            ChatMessage(role=m.role, content=self._replaced(m.content, "system message")) if m.role == "system" else m
            for m in own.messages or []
        ]
        return own.model_copy(update={"messages": messages})


def _alfworld() -> str:
    return read_prompt("alfworld/alfworld_reflection_query.txt").split("\n\n")[0]


def _hotpotqa() -> str:
    return read_prompt("hotpotqa/cot_reflect_instruction.txt").split("\nHere are some examples:")[0]


def _humaneval() -> str:
    return read_prompt("humaneval/self_reflection_chat_instruction.txt")


ALFWORLD = ThirdPartyFraming("alfworld", _alfworld())
HOTPOTQA = ThirdPartyFraming("hotpotqa", _hotpotqa())
HUMANEVAL = ThirdPartyFraming("humaneval", _humaneval())
for _domain in ("alfworld", "hotpotqa", "humaneval"):
    register_source_prompts(SOURCE, _domain, f"{__name__}:{_domain.upper()}")


@register_source(SOURCE)
class ThirdParty(ReflectionSource):
    """The self-diagnosis reflector reading the failed trial as another agent's log."""

    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        framing: ThirdPartyFraming = self.prompts(trial)
        request = framing.request(domain.self_diagnosis_request(trial))
        return Reflection(text=domain.reflection_text(llm.generate(request).text))
