"""Prompt templates, read from the project's `prompts/` folder and nowhere else, and the few layouts several
domains share (numbered turns, the gated chat request, the programmatic signals block)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from harness.llm import ChatMessage
from harness.records.gate import Turn

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


@lru_cache(maxsize=None)
def read_prompt(relative_path: str) -> str:
    """The text of one prompt file, exactly as stored (no stripping)."""
    return (PROMPTS_DIR / relative_path).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def alfworld_react_examples() -> dict[str, str]:
    """Reflexion's ReAct few-shot trajectories, keyed `react_{type}_{0,1,2}`."""
    return json.loads(read_prompt("alfworld/alfworld_3prompts.json"))


def alfworld_actor_header() -> str:
    """The actor's header before the examples."""
    return read_prompt("alfworld/alfworld_actor_header.txt")


def alfworld_base_prompt(prompt_type: str) -> str:
    """Actor header plus the two ReAct examples of the task's type, in Reflexion's order (1 then 0)."""
    examples = alfworld_react_examples()
    return (
        read_prompt("alfworld/alfworld_actor_header.txt")
        + examples[f"react_{prompt_type}_1"]
        + examples[f"react_{prompt_type}_0"]
    )


# A list of three lessons with quotes runs to about 200 tokens; the margin keeps long quotes whole.
GATED_MAX_TOKENS = 384

_SPEAKERS = {
    "reflection": "your earlier lesson",
    "agent": "you",
    "user": "user",
    "environment": "environment",
    "tests": "tests",
}


def render_turns(turns: Sequence[Turn]) -> str:
    """Numbered turns for a prompt, one block per turn: `[N] speaker: text`."""
    return "\n".join(f"[{turn.id}] {_SPEAKERS[turn.role]}: {turn.text}" for turn in turns)


def gated_messages(folder: str, turns_text: str) -> list[ChatMessage]:
    """A chat request for lessons with evidence: `<folder>/gated_system.txt`, then the numbered record."""
    user = read_prompt(f"{folder}/gated_user.txt").format(turns=turns_text).rstrip("\n")
    return [
        ChatMessage(role="system", content=read_prompt(f"{folder}/gated_system.txt").rstrip("\n")),
        ChatMessage(role="user", content=user),
    ]


def signals_block(folder: str, rendered: str) -> str:
    """The text programmatic puts after a scenario: one line per signal, or the sentence saying there is none."""
    if not rendered:
        return read_prompt(f"{folder}/programmatic_no_signals.txt").rstrip("\n")
    return read_prompt(f"{folder}/programmatic_signals.txt").format(signals=rendered).rstrip("\n")
