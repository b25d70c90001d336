"""Gated: the reflector proposes lessons, each citing a numbered turn and an exact quote as evidence.

The source only asks and parses; the gate (harness/gate, applied by harness/reflection/gated_memory.py) drops
items whose evidence fails, piles the rest and, by the condition's approval policy, promotes them:
`auto` approves what passes the quote check, `owner` leaves everything for the owner's review. The
actor reads only live memory, i.e. approved items.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.gate.proposals import parse_proposals
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import render_turns
from harness.reflection._base import GateAnswer, Reflection, ReflectionSource, register_source


class GatedOptions(BaseModel):
    """Settings of the gated source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: Literal["auto", "owner"] = Field(
        "auto", description="auto: approve what passes the quote check; owner: leave it in the pile for review."
    )


@register_source("gated")
class Gated(ReflectionSource):
    """Lessons with evidence, for the gate to check; nothing reaches memory from here directly."""

    Options = GatedOptions
    needs_gate = True

    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        turns = domain.gated_turns(trial)
        request, prefix = domain.gated_request(trial, render_turns(turns))
        raw = llm.generate(request).text
        candidates = parse_proposals(prefix + raw)
        return Reflection(text=None, gate_answer=GateAnswer(raw=raw, turns=turns, candidates=candidates))
