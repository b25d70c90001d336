"""The planted-question scenario: one nightly reflection on a conversation, with and without the memory gate.

The user asked about an event that never happened and the agent rightly said it had no record. Without the
gate, whatever the reflection says goes straight into memory. With it, only notes quoting a user turn reach
the pile, and nothing is live until the owner approves it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import ConfigError
from harness.gate import Dropped, GateStore, Proposal, Turn
from harness.reflection.gated_memory import approve_by_policy
from harness.gate.proposals import parse_proposals
from harness.llm import CachedLLM, CacheStore, CallContext, ChatMessage, ModelConfig, chat_request, create_backend
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import GATED_MAX_TOKENS, gated_messages, read_prompt, render_turns
from harness.run.config import PlantedRefusalConfig
from harness.run.lock import RunLock

SCOPE = "conversation"
ORIGIN = "night 1"
RESULT_FILE = "planted_refusal.json"
GATE_DIR = "gate"
REFLECTION_MAX_TOKENS = 256


class Conversation(BaseModel):
    """A conversation as shipped in data/planted_refusal/conversation.json."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    turns: list[Turn] = Field(min_length=1)


class PlantedOutcome(BaseModel):
    """What each path would have put into memory."""

    model: str
    ungated_reflection: str = Field(description="Without the gate: this text goes into memory as written.")
    gated_answer: str = Field(description="With the gate: the model's proposed notes, as returned.")
    policy: Literal["auto", "owner"]
    proposed: list[Proposal] = Field(description="Notes whose quote was found in a user turn: the pile.")
    dropped: list[Dropped] = Field(description="Notes the quote check refused, with reasons.")
    live: list[Proposal] = Field(description="With the gate: notes in live memory after the policy ran.")
    store: str = Field(description="The gate store, for `reflexion-gate review|show`.")


def load_conversation(path: Path) -> Conversation:
    """The conversation file, validated; a missing or malformed file is a ConfigError naming it."""
    try:
        return Conversation.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"scenario.conversation = {str(path)!r} cannot be read ({error.strerror}).") from None
    except ValidationError as error:
        raise ConfigError(
            f"scenario.conversation = {str(path)!r} is not a conversation file: {error.errors()[0]['msg']}."
        ) from None


def ungated_messages(turns: list[Turn]) -> list[ChatMessage]:
    """The open nightly reflection: say what went wrong and what to remember."""
    user = read_prompt("conversation/reflection_user.txt").format(turns=render_turns(turns))
    return [
        ChatMessage(role="system", content=read_prompt("conversation/reflection_system.txt").rstrip("\n")),
        ChatMessage(role="user", content=user.rstrip("\n")),
    ]


def run_planted_refusal(scenario: PlantedRefusalConfig, model: ModelConfig, seed: int, run_dir: Path) -> PlantedOutcome:
    """Reflect on the conversation both ways and record what would have reached memory."""
    conversation = load_conversation(Path(scenario.conversation))
    lock = RunLock.acquire(run_dir)
    try:
        return _reflect_both_ways(scenario, conversation, model, seed, run_dir)
    finally:
        lock.release()


def _reflect_both_ways(
    scenario: PlantedRefusalConfig, conversation: Conversation, model: ModelConfig, seed: int, run_dir: Path
) -> PlantedOutcome:
    llm = CachedLLM(create_backend(model), CacheStore(Path(scenario.cache.path)), scenario.cache.mode)
    context = CallContext(task_id=SCOPE, trial=0, condition="ungated", role="reflector")
    ungated = MeteredLLM(llm, context).generate(
        chat_request(ungated_messages(conversation.turns), REFLECTION_MAX_TOKENS, seed)
    )
    gated = MeteredLLM(llm, context.model_copy(update={"condition": "gated"})).generate(
        chat_request(gated_messages("conversation", render_turns(conversation.turns)), GATED_MAX_TOKENS, seed)
    )
    store = GateStore.create(run_dir / GATE_DIR)
    submission = store.submit(parse_proposals(gated.text), conversation.turns, scope=SCOPE, origin=ORIGIN)
    approve_by_policy(store, submission.proposed, scenario.policy)
    outcome = PlantedOutcome(
        model=model.name,
        ungated_reflection=ungated.text.strip(),
        gated_answer=gated.text.strip(),
        policy=scenario.policy,
        proposed=submission.proposed,
        dropped=submission.dropped,
        live=store.live_memory(scope=SCOPE),
        store=str(run_dir / GATE_DIR),
    )
    (run_dir / RESULT_FILE).write_text(outcome.model_dump_json(indent=2))
    return outcome


def describe(outcome: PlantedOutcome) -> str:
    """What reached memory on each path, for the terminal."""
    lines = [
        f"Planted question, nightly reflection by {outcome.model}.",
        "",
        "WITHOUT the gate, this goes into memory as written:",
        f"  {outcome.ungated_reflection}",
        "",
        f"WITH the gate (approval policy: {outcome.policy}):",
        f"  live memory: {len(outcome.live)} note(s)",
    ]
    lines += [f"    - {item.lesson}" for item in outcome.live]
    lines.append(f"  in the pile, awaiting the owner: {len(outcome.proposed) - len(outcome.live)} note(s)")
    live_ids = {item.id for item in outcome.live}
    lines += [
        f"    - [{item.id}] {item.lesson}  (turn {item.evidence.turn}: {json.dumps(item.evidence.quote)})"
        for item in outcome.proposed
        if item.id not in live_ids
    ]
    lines.append(f"  dropped by the quote check: {len(outcome.dropped)} note(s)")
    lines += [f"    - {drop.reason}: {drop.detail}" for drop in outcome.dropped]
    lines += ["", f"Review the pile: reflexion-gate review {outcome.store}"]
    return "\n".join(lines)
