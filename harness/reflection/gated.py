"""Gated: the reflector proposes lessons, each citing a numbered turn and an exact quote as evidence.

The source only asks and parses; the gate (harness/gate, applied by harness/gate/memory.py) drops
items whose evidence fails, piles the rest and, by the condition's approval policy, promotes them:
`auto` approves what passes the quote check, `owner` leaves everything for the owner's review. The
actor reads only live memory, i.e. approved items.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.humaneval.actor import chat_request
from harness.evidence_turns import render_turns, trial_turns
from harness.llm import ChatMessage, LLMRequest
from harness.llm.metering import MeteredLLM
from harness.prompts import read_prompt
from harness.gate.proposals import parse_proposals
from harness.reflection._base import GateAnswer, Reflection, ReflectionInput, ReflectionSource, register_source

# A list of three lessons with quotes runs to about 200 tokens; the margin keeps long quotes whole.
GATED_MAX_TOKENS = 384
# The ALFWorld prompt ends inside the JSON list, so the answer continues it.
ALFWORLD_ANSWER_PREFIX = "["
# A completion model does not stop after the list: seen with Qwen2.5-Coder-1.5B, "] ```json" repeated to the
# token limit. The list itself holds neither a code fence nor a blank line.
ALFWORLD_STOP = ["```", "\n\n"]


class GatedOptions(BaseModel):
    """Settings of the gated source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: Literal["auto", "owner"] = Field(
        "auto", description="auto: approve what passes the quote check; owner: leave it in the pile for review."
    )


def gated_query(turns_text: str) -> str:
    """ALFWorld: the completion prompt, ending with the opening bracket of the answer."""
    return read_prompt("alfworld/gated_query.txt").format(turns=turns_text).rstrip("\n")


def gated_messages(domain: str, turns_text: str) -> list[ChatMessage]:
    """HumanEval and conversations: the instruction, then the numbered record."""
    return [
        ChatMessage(role="system", content=read_prompt(f"{domain}/gated_system.txt").rstrip("\n")),
        ChatMessage(role="user", content=read_prompt(f"{domain}/gated_user.txt").format(turns=turns_text).rstrip("\n")),
    ]


@register_source("gated")
class Gated(ReflectionSource):
    """Lessons with evidence, for the gate to check; nothing reaches memory from here directly."""

    Options = GatedOptions
    needs_gate = True

    def reflect(self, trial: ReflectionInput, llm: MeteredLLM) -> Reflection:
        turns = trial_turns(trial)
        if trial.domain == "humaneval":
            raw = llm.generate(
                chat_request(gated_messages("humaneval", render_turns(turns)), GATED_MAX_TOKENS, trial.seed)
            ).text
            candidates = parse_proposals(raw)
        else:
            request = LLMRequest(
                kind="completion",
                prompt=gated_query(render_turns(turns)),
                max_tokens=GATED_MAX_TOKENS,
                temperature=0.0,
                stop=ALFWORLD_STOP,
                seed=trial.seed,
            )
            raw = llm.generate(request).text
            candidates = parse_proposals(ALFWORLD_ANSWER_PREFIX + raw)
        return Reflection(text=None, gate_answer=GateAnswer(raw=raw, turns=turns, candidates=candidates))
