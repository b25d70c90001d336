"""The progress line a run logs every `progress_interval_s` seconds off a terminal: counts, use, elapsed, ETA."""

from __future__ import annotations

from dataclasses import dataclass

from tqdm import tqdm

from harness.metrics.cost import UsageTotals


@dataclass(frozen=True)
class ProgressSnapshot:
    """What the run has done so far, read at one moment."""

    done: int
    """Trials of the plan recorded, those of an earlier invocation included."""
    planned: int
    """At most this many trials in the plan (it shrinks as tasks end early)."""
    in_flight: int
    """Episodes playing now."""
    finished_here: int
    """Trials this invocation finished: the ETA's sample."""
    elapsed_s: float
    """Seconds since this invocation's loop started."""
    usage: UsageTotals
    """Model calls and tokens so far (recorded trials and those in flight), cost at list price."""
    priced: bool
    """Whether any model of the run has a price, so that the cost means something."""


def eta_s(elapsed_s: float, finished_here: int, left: int) -> float | None:
    """Seconds to play `left` more trials at the mean time per trial finished so far; None before the first one
    (unless none is left)."""
    if left <= 0:
        return 0.0
    if finished_here == 0:
        return None
    return elapsed_s / finished_here * left


def progress_line(snapshot: ProgressSnapshot) -> str:
    """`progress: 3 of at most 8 trials done, 2 in flight, 412 model calls, ... elapsed 05:12, ETA 08:40`."""
    eta = eta_s(snapshot.elapsed_s, snapshot.finished_here, snapshot.planned - snapshot.done)
    parts = [
        f"{snapshot.done} of at most {snapshot.planned} trials done",
        f"{snapshot.in_flight} in flight",
        f"{snapshot.usage.calls:,} model calls",
        f"{snapshot.usage.tokens:,} tokens",
    ]
    if snapshot.priced:
        parts.append(f"${snapshot.usage.cost_usd:.4f} at list price")
    parts.append(f"elapsed {tqdm.format_interval(snapshot.elapsed_s)}")
    parts.append("ETA unknown" if eta is None else f"ETA {tqdm.format_interval(eta)}")
    return "progress: " + ", ".join(parts)
