"""Progress on long work: which trial, which task, which step, and how far the run is with how long to go."""

from __future__ import annotations

import io
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import TextIO

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from harness.llm import Usage
from harness.metrics.cost import ConditionPrices, UsageTotals, record_totals, usage_cost, with_unpriced
from harness.run.config import PROGRESS_INTERVAL_S
from harness.run.heartbeat import Heartbeat
from harness.run.progress_line import ProgressSnapshot, progress_line
from harness.records.trial_count import TrialCount
from harness.records import TrialRecord

log = logging.getLogger("harness.run.progress")

UNSIZED_COLUMNS, UNSIZED_ROWS = 120, 24
"""The bar's terminal size where the terminal reports none."""


def _columns(stream: TextIO) -> int:
    """The width of the terminal `stream` writes to; 0 when it reports none or is no terminal's."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return 0


class Progress:
    """Thread-safe progress: one log line per finished trial and, while the loop runs (`running`), a tqdm bar with
    rate, ETA and the step in flight on a terminal, or a progress line every `interval_s` seconds off one."""

    def __init__(
        self,
        total_trials: int,
        enabled: bool = True,
        stream: TextIO | None = None,
        interval_s: float = PROGRESS_INTERVAL_S,
        prices: Mapping[str, ConditionPrices] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total_trials = total_trials
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.live = enabled and self.stream.isatty()
        self.interval_s = interval_s
        self._prices = dict(prices or {})
        self._priced = any(role.price for p in self._prices.values() for role in (p.actor, p.reflector))
        self._clock = clock
        self._lock = threading.Lock()
        self._trial = 0
        self._tasks = 0
        self._done = 0
        self._count: TrialCount | None = None
        self._usage = UsageTotals()
        self._started = 0
        self._finished_here = 0
        self._began_at = clock()
        self._bar: tqdm | None = None

    @contextmanager
    def running(self, count: TrialCount, recorded: Iterable[TrialRecord] = ()) -> Iterator[None]:
        """The loop's span: `count` is the plan so far and `recorded` the trials already in the run directory.

        Off a terminal a last progress line closes a loop that ran to its end; the line thread is stopped and
        joined however the block ends, so nothing is printed after it.
        """
        recorded = list(recorded)
        prices = with_unpriced(recorded, self._prices)
        with self._lock:
            self._count = count
            self._usage = sum((record_totals(r, prices[r.condition]) for r in recorded), UsageTotals())
            self._began_at = self._clock()
        if not self.enabled:
            yield
            return
        with ExitStack() as stack:
            if self.live:
                stack.enter_context(logging_redirect_tqdm())  # log lines print above the bar, not through it
                self._bar = stack.enter_context(self._new_bar(count))
                stack.callback(setattr, self, "_bar", None)
            else:
                stack.enter_context(Heartbeat(self.interval_s, self._log_line, name="progress-line"))
            yield
        if not self.live:
            self._log_line()

    def _new_bar(self, count: TrialCount) -> tqdm:
        # A terminal that reports no width (a pty nobody sized) would get no bar at all from tqdm.
        sized = _columns(self.stream) > 0
        return tqdm(
            total=count.planned,
            initial=count.done,
            file=self.stream,
            unit="trial",
            desc="trials",
            dynamic_ncols=sized,
            ncols=None if sized else UNSIZED_COLUMNS,
            nrows=None if sized else UNSIZED_ROWS,  # tqdm hides a bar below the last of 0 rows
            smoothing=0,  # the rate and ETA of the mean time per trial, as the progress line has them
        )

    def snapshot(self) -> ProgressSnapshot:
        """The counts now; `done` and `planned` are 0 before `running`."""
        with self._lock:
            count = self._count
            return ProgressSnapshot(
                done=count.done if count else 0,
                planned=count.planned if count else 0,
                in_flight=self._started - self._finished_here,
                finished_here=self._finished_here,
                elapsed_s=self._clock() - self._began_at,
                usage=self._usage,
                priced=self._priced,
            )

    def _log_line(self) -> None:
        log.info("%s", progress_line(self.snapshot()))

    def trial_started(self, trial: int, tasks: int) -> None:
        with self._lock:
            self._trial, self._tasks, self._done = trial, tasks, 0
        if self.enabled:
            log.info("trial %d/%d: %d task(s) to play", trial + 1, self.total_trials, tasks)

    def episode_started(self) -> None:
        """A trial began playing (in its worker thread)."""
        with self._lock:
            self._started += 1

    def call_made(self, condition: str, role: str, usage: Usage) -> None:
        """One model call of a trial in flight: counted now, not when its trial is recorded."""
        prices = self._prices.get(condition)
        price = getattr(prices, role).price if prices else None
        tokens = usage.prompt_tokens + usage.completion_tokens
        call = UsageTotals(
            calls=1,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cost_usd=usage_cost(usage, price) if price else 0.0,
            unpriced_tokens=0 if price else tokens,
        )
        with self._lock:
            self._usage = self._usage + call

    def step(self, task_id: str, trial: int, step: int) -> None:
        bar = self._bar
        if bar is None:
            return
        bar.set_postfix_str(f"trial {trial + 1}/{self.total_trials} | {task_id} step {step}", refresh=True)

    def trial_done(self, record: TrialRecord) -> None:
        with self._lock:
            self._done += 1
            self._finished_here += 1
            done, tasks = self._done, self._tasks
            if self._count is not None:
                self._count.add(record)
            count = (self._count.done, self._count.planned) if self._count is not None else None
        bar = self._bar
        if bar is not None and count is not None:
            bar.total = count[1]  # the plan shrinks as tasks end early
            bar.update(count[0] - bar.n)
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
