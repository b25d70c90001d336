"""What the servers said about themselves: a served model or fingerprint that changed mid-run. (Answers cut at the
token limit are harness.metrics.run_on's.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from harness.records import TrialRecord

ServedField = Literal["served_model", "system_fingerprint"]
_WHAT = {"served_model": "served model", "system_fingerprint": "system fingerprint"}


class Drift(BaseModel):
    """One condition's role whose server named itself differently within a run."""

    condition: str
    role: str
    field: ServedField
    values: list[str]
    """Every value said, in the order first said."""
    first_trial: int
    """The trial of the first call that said another value than the run's first."""
    first_task: str

    def sentence(self) -> str:
        """The drift in one sentence, naming the values and where it started."""
        first, *others = self.values
        return (
            f"{self.condition}, {self.role}: the {_WHAT[self.field]} changed mid-run, from {first!r} to "
            f"{', '.join(repr(v) for v in others)}, first in trial {self.first_trial} (task {self.first_task})."
        )


def served_drift(records: Sequence[TrialRecord]) -> list[Drift]:
    """Each (condition, role, field) whose calls named more than one value, in trial order then log order.

    A value left unsaid (None: an embedded model's fingerprint, a cache entry written before calls were
    recorded) is no value, so it never counts as a change.
    """
    ordered = sorted(enumerate(records), key=lambda pair: (pair[1].trial, pair[0]))
    drifts: list[Drift] = []
    keys = dict.fromkeys((r.condition, call.role) for _, r in ordered for call in r.calls)
    for condition, role in keys:
        for field in ("served_model", "system_fingerprint"):
            values: list[str] = []
            start: tuple[int, str] | None = None
            for _, record in ordered:
                if record.condition != condition:
                    continue
                for call in record.calls:
                    value = getattr(call, field)
                    if call.role != role or value is None:
                        continue
                    if values and value != values[0] and start is None:
                        start = (record.trial, record.task_id)
                    if value not in values:
                        values.append(value)
            if start is not None:
                trial, task = start
                drifts.append(
                    Drift(condition=condition, role=role, field=field, values=values, first_trial=trial, first_task=task)
                )
    return drifts
