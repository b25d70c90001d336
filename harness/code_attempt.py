"""What one HumanEval trial leaves in its record beside the trajectory: tests, code, verdicts, signals.

Nothing here depends on the clock (sandbox seconds go to the record's timing), so replays compare equal.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.code_actor import InternalTests
from harness.code_extraction import Implementation
from harness.code_signals import CodeSignals


class CodeAttempt(BaseModel):
    """One implementation, the internal tests it ran against, and what the sandbox said."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["humaneval"] = "humaneval"
    internal_tests: InternalTests | None = Field(
        description="The tests the model wrote, kept and dropped with reasons (trial 0; later trials reuse them)."
    )
    tests_run: list[str] = Field(description="The internal asserts the implementation was run against.")
    implementation: Implementation = Field(description="The code and the answer it was read from.")
    internal_status: str = Field(description="The sandbox verdict on the internal tests, or 'no_tests'.")
    check_status: str | None = Field(description="The verdict of the real check(), run once internal tests pass.")
    signals: CodeSignals = Field(description="Failure signals of the internal-test run (never of check()).")
