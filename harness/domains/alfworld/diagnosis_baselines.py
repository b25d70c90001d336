"""The heuristic rows beside the conditions (issue 49 item 3): the step each baseline would name on an ALFWorld trial,
for the diagnosis measures to score like a reflection's claims.

- `last_step`: the trial's last step;
- `first_nothing_happens`: the first step answered "Nothing happens.";
- `first_loop_start`: where the first action loop starts (`signals.find_action_loops`: a cycle of 1-3 actions
  repeated back to back, thoughts skipped);
- `signal_claims`: the trajectory parser's own signals (what the `programmatic` condition is shown) read as a
  diagnosis: the earliest signal's step, and its cause (`invalid_action` for "Nothing happens.", `loop` for an
  action loop or the repeated-action stop, `search_budget` for a spent budget).
Each returns None (or claims naming no step) where its signal is absent.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.domains.alfworld.signals import find_action_loops, find_nothing_happens, parse_failures
from harness.records.diagnosis import Claim, ReflectionClaims
from harness.records.step import Step

SIGNALS_RULE = "alfworld-signals/1"


def last_step(steps: Sequence[Step]) -> int | None:
    return len(steps) or None


def first_nothing_happens(steps: Sequence[Step]) -> int | None:
    found = find_nothing_happens(steps)
    return found[0].step if found else None


def first_loop_start(steps: Sequence[Step]) -> int | None:
    loops = find_action_loops(steps)
    return loops[0].start_step if loops else None


def signal_claims(steps: Sequence[Step], end_reason: str, max_steps: int) -> ReflectionClaims:
    """The parser's signals (`signals.parse_failures`) as a reflection would claim them: the earliest one's step and
    cause. ValueError where the end reason and the steps disagree, as the parser says."""
    signals = parse_failures(steps, end_reason, max_steps)
    candidates: list[tuple[int, str, str]] = [(s.step, "invalid_action", s.line()) for s in signals.nothing_happens]
    candidates += [(loop.start_step, "loop", loop.line()) for loop in signals.loops]
    if signals.exhausted is not None:
        candidates.append((signals.exhausted.step, "loop", signals.exhausted.line()))
    if signals.budget is not None:
        candidates.append((signals.budget.step, "search_budget", signals.budget.line()))
    if not candidates:
        return ReflectionClaims(rule=SIGNALS_RULE, claimed_steps=[], ambiguous=False, cause=None, claims=[])
    step, cause, line = min(candidates, key=lambda c: c[0])  # the earliest; at one step, the order above
    claims = [
        Claim(kind="step", text=line, start=0, end=len(line), means=f"step {step}", steps=[step], confabulated=False),
        Claim(kind="cause", text=line, start=0, end=len(line), means=cause, steps=[], confabulated=False),
    ]
    return ReflectionClaims(rule=SIGNALS_RULE, claimed_steps=[step], ambiguous=False, cause=cause, claims=claims)
