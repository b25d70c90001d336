"""What an ALFWorld trial's programmatic reflection leaves in its record: the trajectory parser's signals.

Models only, importing nothing of the harness, so the record schema can hold them without loading the parser.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

NOTHING_HAPPENS = "Nothing happens."


class NothingHappens(BaseModel):
    """An action the environment answered with exactly "Nothing happens."."""

    model_config = ConfigDict(frozen=True)

    step: int = Field(ge=1, description="1-based step number.")
    action: str = Field(description="The action as sent.")

    def line(self) -> str:
        return f"Step {self.step}: `{self.action}` -> {NOTHING_HAPPENS}"


class ActionLoop(BaseModel):
    """A cycle of environment actions repeated back to back (thoughts in between are skipped)."""

    model_config = ConfigDict(frozen=True)

    start_step: int = Field(ge=1, description="1-based step of the loop's first action.")
    end_step: int = Field(ge=1, description="1-based step of the last action of its last full cycle.")
    cycle: list[str] = Field(min_length=1, description="The repeated actions, in order.")
    repeats: int = Field(ge=2, description="Full cycles in a row; a trailing partial cycle is not counted.")

    @property
    def step(self) -> int:
        return self.start_step

    def line(self) -> str:
        actions = ", ".join(f"`{action}`" for action in self.cycle)
        return f"Steps {self.start_step}-{self.end_step}: {actions} repeated {self.repeats} times in a row."


class Exhaustion(BaseModel):
    """The actor's stop on the same action twice in a row (end_reason "exhausted")."""

    model_config = ConfigDict(frozen=True)

    step: int = Field(ge=2, description="1-based step of the repetition, the episode's last step.")
    action: str = Field(description="The repeated action.")

    def line(self) -> str:
        return f"Step {self.step}: `{self.action}` repeated the previous action; the episode stopped."


class StepBudget(BaseModel):
    """The episode ran out of steps (end_reason "max_steps")."""

    model_config = ConfigDict(frozen=True)

    max_steps: int = Field(ge=1, description="The actor's step budget, all of it spent.")

    @property
    def step(self) -> int:
        return self.max_steps

    def line(self) -> str:
        return f"Step {self.max_steps}: the step budget of {self.max_steps} actions ran out."


class FailureSignals(BaseModel):
    """Every failure signal of one trajectory."""

    model_config = ConfigDict(frozen=True)

    nothing_happens: list[NothingHappens] = Field(description="Actions answered 'Nothing happens.', in order.")
    loops: list[ActionLoop] = Field(description="Non-overlapping action loops, in order.")
    exhausted: Exhaustion | None = Field(description="The repeated-action stop, if the episode ended so.")
    budget: StepBudget | None = Field(description="The spent step budget, if the episode ended so.")

    @property
    def has_failures(self) -> bool:
        return bool(self.nothing_happens or self.loops or self.exhausted or self.budget)

    def render(self) -> str:
        """One line per signal, ordered by step, for a reflection prompt; "" when there is none.

        At the same step the order is: nothing happens, loop, exhaustion, budget.
        """
        signals: list[NothingHappens | ActionLoop | Exhaustion | StepBudget] = [
            *self.nothing_happens,
            *self.loops,
            *([self.exhausted] if self.exhausted else []),
            *([self.budget] if self.budget else []),
        ]
        # sorted() is stable, so the list order above breaks ties at the same step.
        return "\n".join(signal.line() for signal in sorted(signals, key=lambda signal: signal.step))
