"""How many of a run's planned trials are recorded, and at most how many the plan still holds."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from harness.records import TrialRecord

Chain = tuple[str, str, int]
"""(condition, task, repeat): one chain of trials."""


class TrialCount:
    """Trials of the plan recorded, and an upper bound on the trials the plan will hold.

    A chain whose task is over (solved, or ended for good) plays no further trial, so the bound starts at
    chains x trials and shrinks as tasks end; it equals the recorded count once the run is through. Records outside
    the plan (another condition, a trial beyond `trials`) count in neither.
    """

    def __init__(
        self,
        chains: Iterable[Chain],
        trials: int,
        ended: Callable[[TrialRecord], bool],
        recorded: Iterable[TrialRecord] = (),
    ) -> None:
        self._trials = trials
        self._ended = ended
        self._recorded: dict[Chain, set[int]] = {chain: set() for chain in chains}
        self._over: set[Chain] = set()
        for record in recorded:
            self.add(record)

    def add(self, record: TrialRecord) -> None:
        chain = (record.condition, record.task_id, record.repeat)
        if chain not in self._recorded or not 0 <= record.trial < self._trials:
            return
        self._recorded[chain].add(record.trial)
        if self._ended(record):
            self._over.add(chain)

    @property
    def done(self) -> int:
        return sum(len(trials) for trials in self._recorded.values())

    @property
    def planned(self) -> int:
        """At most this many trials: every trial of a chain still open, the recorded ones of a chain that is over."""
        return sum(
            len(trials) if chain in self._over else self._trials for chain, trials in self._recorded.items()
        )
