"""Progress on long work: which trial, which task, which step."""

from __future__ import annotations

import logging
import sys
import threading
from typing import TextIO

from harness.records import TrialRecord

log = logging.getLogger("harness.run.progress")


class Progress:
    """Thread-safe progress lines: a live step counter on a terminal, one log line per finished trial."""

    def __init__(self, total_trials: int, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.total_trials = total_trials
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.live = enabled and self.stream.isatty()
        self._lock = threading.Lock()
        self._trial = 0
        self._tasks = 0
        self._done = 0

    def trial_started(self, trial: int, tasks: int) -> None:
        with self._lock:
            self._trial, self._tasks, self._done = trial, tasks, 0
        if self.enabled:
            log.info("trial %d/%d: %d task(s) to play", trial + 1, self.total_trials, tasks)

    def step(self, task_id: str, trial: int, step: int) -> None:
        if not self.live:
            return
        with self._lock:
            line = f"\rtrial {trial + 1}/{self.total_trials} | {self._done}/{self._tasks} done | {task_id} step {step}"
            self.stream.write(line[:160].ljust(100))
            self.stream.flush()

    def trial_done(self, record: TrialRecord) -> None:
        with self._lock:
            self._done += 1
            done, tasks = self._done, self._tasks
            if self.live:
                self.stream.write("\r" + " " * 100 + "\r")
        if self.enabled:
            log.info(
                "[%d/%d] %s %s trial %d%s: %s after %d steps (%s)%s",
                done,
                tasks,
                record.condition,
                record.task_id,
                record.trial,
                f" repeat {record.repeat}" if record.repeat else "",
                "WON" if record.success else "failed",
                record.steps,
                record.end_reason,
                " + reflection" if record.reflection is not None else "",
            )
