"""What a HotpotQA trial leaves in its record beside the trajectory: the thought, the action as parsed, the answer.

Models only: reading a record loads none of the agent or LLM machinery that made it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.records.attempt import attempt_details


@attempt_details
class QuestionAttempt(BaseModel):
    """One trial of Reflexion's CoT agent: a Thought, then an Action, judged if it is Finish[answer]."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["hotpotqa"] = "hotpotqa"
    thought: str = Field(description="The Thought as the scratchpad holds it (format_step: stripped, no newlines).")
    action: str | None = Field(description="The Action likewise; None when the trial ended before asking for it.")
    action_type: str | None = Field(
        description="The action's type by Reflexion's parse_action (`^(\\w+)\\[(.+)\\]$`); None if it did not parse."
    )
    answer: str | None = Field(description="The argument of Finish[...], judged by exact match; None without Finish.")
    earlier_answers: list[str] = Field(
        description="The answers this task gave in its earlier trials under the same condition, in trial order."
    )
    scratchpad: str = Field(description="The trial's scratchpad, exactly as the agent and the reflector read it.")
