"""WARNING lines in the run log for reflections that hit the token limit or ran on past their end: the first of
each kind per condition as it is recorded (a long run on a local server without stop sequences shows it in its
first trials, not only at the end), and every condition's counts when the run's metrics are written."""

from __future__ import annotations

import logging

from harness.errors import visible
from harness.metrics.run import RunMetrics
from harness.metrics.run_on import FIX, record_end, run_on_warning
from harness.records import TrialRecord

log = logging.getLogger(__name__)


class RunOnWatch:
    """Warns once per (condition, kind); fed by the loop's one recording thread."""

    def __init__(self) -> None:
        self._warned: set[tuple[str, str]] = set()

    def saw(self, record: TrialRecord) -> None:
        end = record_end(record)
        if end is None:
            return
        found = [
            ("limit", end.hit_limit is True, "hit the token limit"),
            ("ran_on", end.ran_on, f"ran on past its end into memory ({visible(end.marker or '')!r}, at character {end.at})"),
        ]  # fmt: skip
        for kind, happened, what in found:
            if happened and (record.condition, kind) not in self._warned:
                self._warned.add((record.condition, kind))
                log.warning(
                    "%s: the reflection of task %s, trial %d %s; %s. Warned once per condition: metrics.json and "
                    "summary.md count them all.",
                    visible(record.condition),
                    visible(record.task_id),
                    record.trial,
                    what,
                    FIX,
                )


def warn_run_on_totals(metrics: RunMetrics) -> None:
    """One WARNING per condition with reflections at the limit or run on, with its counts and the fix."""
    for condition in metrics.conditions:
        if condition.run_on and (sentence := run_on_warning(visible(condition.condition), condition.run_on)):
            log.warning(sentence)
